"""Extract the part of Microsoft Graph v1.0's description the Microsoft 365 adapter uses.

Source: github.com/microsoftgraph/msgraph-metadata, ``clean_v10_metadata/cleanMetadata.xml``: the
cleaned v1.0 CSDL that repository converts into ``openapi/v1.0/openapi.yaml`` (with
OpenAPI.NET.OData and ``conversion-settings/openapi.json``). The schemas below are built from that
CSDL with the converter's mapping (a primitive per Edm type, ``allOf`` over the base type, nullable
references as ``anyOf`` with a nullable object, ``value`` collections, the
``microsoft.graph.ODataErrors`` error body), for the paths the adapter sends, and nothing else.

Reproduce (from a clone of msgraph-metadata)::

    python scripts/graph_openapi_subset.py /path/to/msgraph-metadata > \\
        shared/python/multitool/local/standins/graph_openapi.json

The output names the commit it came from; ``tests/unit/test_graph_contract.py`` checks that the
committed file is what this script makes of that commit's CSDL when a clone is at hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

EDM = "{http://docs.oasis-open.org/odata/ns/edm}"
NAMESPACE = "microsoft.graph"
CSDL_PATH = "clean_v10_metadata/cleanMetadata.xml"
SCHEMA_REF = "#/components/schemas/"

# The navigation properties a request or response of the adapter carries inline; every other
# navigation property is left out of the schemas (the adapter neither sends nor expands them).
INLINE_NAVIGATION = {("event", "singleValueExtendedProperties")}
# Derived types a response may carry in place of their base (workingHours.timeZone, a message's
# attachments).
DERIVED = ("customTimeZone", "fileAttachment")

PRIMITIVES: dict[str, dict[str, Any]] = {
    "Edm.String": {"type": "string"},
    "Edm.Boolean": {"type": "boolean"},
    "Edm.Int32": {"maximum": 2147483647, "minimum": -2147483648, "type": "integer", "format": "int32"},
    "Edm.Int16": {"maximum": 32767, "minimum": -32768, "type": "integer", "format": "int16"},
    "Edm.Int64": {"type": "integer", "format": "int64"},
    "Edm.Byte": {"maximum": 255, "minimum": 0, "type": "integer", "format": "uint8"},
    "Edm.Double": {"oneOf": [{"type": "number", "format": "double"}, {"type": "string"}]},
    "Edm.Single": {"oneOf": [{"type": "number", "format": "float"}, {"type": "string"}]},
    "Edm.Guid": {
        "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "type": "string",
        "format": "uuid",
    },
    "Edm.DateTimeOffset": {
        "pattern": "^[0-9]{4,}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:"
        "[0-5][0-9]([.][0-9]{1,12})?(Z|[+-][0-9][0-9]:[0-9][0-9])$",
        "type": "string",
        "format": "date-time",
    },
    "Edm.Date": {"pattern": "^[0-9]{4,}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])$", "type": "string"},
    "Edm.TimeOfDay": {
        "pattern": "^([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])([.][0-9]{1,12})?$",
        "type": "string",
        "format": "time",
    },
    "Edm.Duration": {
        "pattern": "^-?P([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+([.][0-9]+)?S)?)?$",
        "type": "string",
        "format": "duration",
    },
    "Edm.Binary": {"type": "string", "format": "base64url"},
    "Edm.Stream": {"type": "string", "format": "base64url"},
}

USER_ID = {"name": "user-id", "in": "path", "required": True, "schema": {"type": "string"}}
EVENT_ID = {"name": "event-id", "in": "path", "required": True, "schema": {"type": "string"}}
MESSAGE_ID = {"name": "message-id", "in": "path", "required": True, "schema": {"type": "string"}}
ATTACHMENT_ID = {"name": "attachment-id", "in": "path", "required": True, "schema": {"type": "string"}}
# The mailbox's ids that survive a move (a draft sent moves to Sent Items and keeps its id):
# https://learn.microsoft.com/graph/outlook-immutable-id
PREFER = {"name": "Prefer", "in": "header", "schema": {"type": "string"}}
QUERY = {
    "top": {"name": "$top", "in": "query", "schema": {"minimum": 0, "type": "integer"}},
    "skip": {"name": "$skip", "in": "query", "schema": {"minimum": 0, "type": "integer"}},
    "filter": {"name": "$filter", "in": "query", "schema": {"type": "string"}},
    "search": {"name": "$search", "in": "query", "schema": {"type": "string"}},
    "count": {"name": "$count", "in": "query", "schema": {"type": "boolean"}},
    "select": {"name": "$select", "in": "query", "style": "form", "explode": False},
    "orderby": {"name": "$orderby", "in": "query", "style": "form", "explode": False},
}
ERRORS = {
    "4XX": {"$ref": "#/components/responses/error"},
    "5XX": {"$ref": "#/components/responses/error"},
}


class Csdl:
    def __init__(self, root: ET.Element) -> None:
        self.types: dict[str, ET.Element] = {}
        for schema in root.iter(f"{EDM}Schema"):
            if schema.get("Namespace") != NAMESPACE:
                continue
            for kind in ("EntityType", "ComplexType", "EnumType"):
                for element in schema.iter(f"{EDM}{kind}"):
                    self.types[element.get("Name", "")] = element
        self.schemas: dict[str, Any] = {}

    def reference(self, type_name: str, *, nullable: bool) -> dict[str, Any]:
        if type_name.startswith("Collection("):
            return {"type": "array", "items": self.reference(type_name[11:-1], nullable=False)}
        if type_name.startswith("Edm."):
            schema = dict(PRIMITIVES[type_name])
            if nullable:
                schema["nullable"] = True
            return schema
        name = type_name.removeprefix("graph.").removeprefix(f"{NAMESPACE}.")
        self.build(name)
        ref = {"$ref": f"{SCHEMA_REF}{NAMESPACE}.{name}"}
        return {"anyOf": [ref, {"type": "object", "nullable": True}]} if nullable else ref

    def build(self, name: str) -> None:
        key = f"{NAMESPACE}.{name}"
        if key in self.schemas:
            return
        element = self.types[name]
        self.schemas[key] = {}  # placeholder: the type may refer to itself
        if element.tag == f"{EDM}EnumType":
            members = [m.get("Name") for m in element.iter(f"{EDM}Member")]
            self.schemas[key] = {"title": name, "enum": members, "type": "string"}
            return
        properties: dict[str, Any] = {}
        for child in element:
            prop = child.get("Name", "")
            if child.tag == f"{EDM}Property":
                nullable = child.get("Nullable", "true") != "false"
                properties[prop] = self.reference(child.get("Type", ""), nullable=nullable)
            elif child.tag == f"{EDM}NavigationProperty" and (name, prop) in INLINE_NAVIGATION:
                properties[prop] = self.reference(child.get("Type", ""), nullable=False)
        own: dict[str, Any] = {"title": name, "type": "object", "properties": properties}
        if element.tag == f"{EDM}ComplexType" or element.get("BaseType") is None:
            own["properties"] = {**properties, "@odata.type": {"type": "string"}}
        base = element.get("BaseType")
        self.schemas[key] = (
            {"allOf": [self.reference(base, nullable=False), own]} if base is not None else own
        )


def collection(ref: str) -> dict[str, Any]:
    return {
        "title": f"Collection of {ref.rsplit('.', 1)[-1]}",
        "type": "object",
        "properties": {
            "value": {"type": "array", "items": {"$ref": f"{SCHEMA_REF}{ref}"}},
            "@odata.nextLink": {"type": "string", "nullable": True},
        },
    }


def body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def answer(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    if schema is None:
        return {"description": description}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def subset(root: ET.Element, commit: str) -> dict[str, Any]:
    csdl = Csdl(root)
    for name in ("user", "event", "message", "attachment", "scheduleInformation", *DERIVED):
        csdl.build(name)
    # An action's name is not unique (event and printJob both have ``cancel``): by name and binding.
    actions = {
        (a.get("Name"), a.find(f"{EDM}Parameter[@Name='bindingParameter']").get("Type")): a  # type: ignore[union-attr]
        for a in root.iter(f"{EDM}Action")
        if a.find(f"{EDM}Parameter[@Name='bindingParameter']") is not None
    }

    def action_body(name: str, binding: str) -> dict[str, Any]:
        action = actions[(name, binding)]
        parameters = [p for p in action.iter(f"{EDM}Parameter") if p.get("Name") != "bindingParameter"]
        return {
            "type": "object",
            "properties": {
                p.get("Name"): csdl.reference(
                    p.get("Type", ""), nullable=p.get("Nullable", "true") != "false"
                )
                for p in parameters
            },
            "additionalProperties": {"type": "object"},
        }

    event = {"$ref": f"{SCHEMA_REF}{NAMESPACE}.event"}
    schemas = dict(sorted(csdl.schemas.items()))
    schemas["microsoft.graph.userCollectionResponse"] = collection(f"{NAMESPACE}.user")
    schemas["microsoft.graph.eventCollectionResponse"] = collection(f"{NAMESPACE}.event")
    schemas["microsoft.graph.messageCollectionResponse"] = collection(f"{NAMESPACE}.message")
    schemas["microsoft.graph.attachmentCollectionResponse"] = collection(f"{NAMESPACE}.attachment")
    schemas["microsoft.graph.scheduleInformationCollectionResponse"] = collection(
        f"{NAMESPACE}.scheduleInformation"
    )
    # The error body every Graph request may answer (OpenAPI.NET.OData's ODataErrors, as Graph's
    # description defines it: https://learn.microsoft.com/graph/errors).
    schemas["microsoft.graph.ODataErrors.ODataError"] = {
        "required": ["error"],
        "type": "object",
        "properties": {"error": {"$ref": f"{SCHEMA_REF}microsoft.graph.ODataErrors.MainError"}},
    }
    schemas["microsoft.graph.ODataErrors.MainError"] = {
        "required": ["code", "message"],
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "target": {"type": "string", "nullable": True},
            "details": {
                "type": "array",
                "items": {"$ref": f"{SCHEMA_REF}microsoft.graph.ODataErrors.ErrorDetails"},
            },
            "innerError": {"$ref": f"{SCHEMA_REF}microsoft.graph.ODataErrors.InnerError"},
        },
    }
    schemas["microsoft.graph.ODataErrors.ErrorDetails"] = {
        "required": ["code", "message"],
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "target": {"type": "string", "nullable": True},
        },
    }
    schemas["microsoft.graph.ODataErrors.InnerError"] = {"type": "object"}
    # $select takes the type's properties and its base types' (an event's changeKey is outlookItem's),
    # as the converter's enum lists them.
    user_properties = sorted(_inherited_properties(csdl, "user"))
    event_properties = sorted(_inherited_properties(csdl, "event"))
    select_users = {
        **QUERY["select"],
        "schema": {
            "uniqueItems": True,
            "type": "array",
            "items": {"enum": ["id", *user_properties], "type": "string"},
        },
    }
    message = {"$ref": f"{SCHEMA_REF}{NAMESPACE}.message"}
    select_messages = {
        **QUERY["select"],
        "schema": {
            "uniqueItems": True,
            "type": "array",
            "items": {"enum": ["id", *sorted(_inherited_properties(csdl, "message"))], "type": "string"},
        },
    }
    select_attachments = {
        **QUERY["select"],
        "schema": {
            "uniqueItems": True,
            "type": "array",
            "items": {"enum": ["id", *sorted(_inherited_properties(csdl, "attachment"))], "type": "string"},
        },
    }

    def answer_draft(name: str) -> dict[str, Any]:
        """createReply / createReplyAll / createForward: a draft in the mailbox, in the thread."""
        return {
            "post": {
                "operationId": f"users.user.messages.message.{name}",
                "parameters": [USER_ID, MESSAGE_ID, PREFER],
                "requestBody": body(action_body(name, "graph.message")),
                # The converter answers 200 for an action with a return type; the service answers
                # 201 Created (https://learn.microsoft.com/graph/api/message-createreply).
                "responses": {"200": answer("Success", message), "201": answer("Created", message), **ERRORS},
            }
        }

    select_events = {
        **QUERY["select"],
        "schema": {
            "uniqueItems": True,
            "type": "array",
            "items": {"enum": ["id", *event_properties], "type": "string"},
        },
    }
    # The event actions the meeting tools send (cancel: the organizer's; accept, tentativelyAccept and
    # decline: an attendee's), each answering 202 Accepted with no body
    # (https://learn.microsoft.com/graph/api/event-cancel, .../event-accept, .../event-decline).
    event_actions = {
        f"/users/{{user-id}}/events/{{event-id}}/{name}": {
            "post": {
                "operationId": f"users.user.events.event.{name}",
                "parameters": [USER_ID, EVENT_ID],
                "requestBody": body(action_body(name, "graph.event")),
                "responses": {"202": answer("Accepted"), "204": answer("Success"), **ERRORS},
            }
        }
        for name in ("accept", "cancel", "decline", "tentativelyAccept")
    }
    # calendarView: the occurrences, exceptions and single events in a window; startDateTime and
    # endDateTime are required query options (https://learn.microsoft.com/graph/api/user-list-calendarview).
    window = [
        {"name": name, "in": "query", "required": True, "schema": {"type": "string"}}
        for name in ("startDateTime", "endDateTime")
    ]
    return {
        "openapi": "3.0.4",
        "info": {
            "title": "Microsoft Graph v1.0: the paths and schemas multitool's Microsoft 365 adapter uses",
            "version": "v1.0",
            "x-source": {
                "repository": "https://github.com/microsoftgraph/msgraph-metadata",
                "commit": commit,
                "path": CSDL_PATH,
                "script": "scripts/graph_openapi_subset.py",
            },
        },
        "servers": [{"url": "https://graph.microsoft.com/v1.0"}],
        "paths": {
            "/users": {
                "get": {
                    "operationId": "users.user.ListUser",
                    "parameters": [
                        QUERY["top"],
                        QUERY["search"],
                        QUERY["filter"],
                        QUERY["count"],
                        select_users,
                    ],
                    "responses": {
                        "200": answer(
                            "Retrieved collection",
                            {"$ref": f"{SCHEMA_REF}microsoft.graph.userCollectionResponse"},
                        ),
                        **ERRORS,
                    },
                }
            },
            "/users/{user-id}/calendar/getSchedule": {
                "post": {
                    "operationId": "users.user.calendar.getSchedule",
                    "parameters": [USER_ID],
                    "requestBody": body(action_body("getSchedule", "graph.calendar")),
                    "responses": {
                        "200": answer(
                            "Success",
                            {"$ref": f"{SCHEMA_REF}microsoft.graph.scheduleInformationCollectionResponse"},
                        ),
                        **ERRORS,
                    },
                }
            },
            "/users/{user-id}/calendarView": {
                "get": {
                    "operationId": "users.ListCalendarView",
                    "parameters": [
                        USER_ID,
                        *window,
                        QUERY["top"],
                        QUERY["skip"],
                        QUERY["filter"],
                        QUERY["count"],
                        QUERY["orderby"],
                        select_events,
                    ],
                    "responses": {
                        "200": answer(
                            "Retrieved collection",
                            {"$ref": f"{SCHEMA_REF}microsoft.graph.eventCollectionResponse"},
                        ),
                        **ERRORS,
                    },
                }
            },
            "/users/{user-id}/events": {
                "get": {
                    "operationId": "users.ListEvents",
                    "parameters": [USER_ID, QUERY["top"], QUERY["filter"], QUERY["count"], select_events],
                    "responses": {
                        "200": answer(
                            "Retrieved collection",
                            {"$ref": f"{SCHEMA_REF}microsoft.graph.eventCollectionResponse"},
                        ),
                        **ERRORS,
                    },
                },
                "post": {
                    "operationId": "users.CreateEvents",
                    "parameters": [USER_ID],
                    "requestBody": body(event),
                    "responses": {"201": answer("Created navigation property.", event), **ERRORS},
                },
            },
            "/users/{user-id}/events/{event-id}": {
                "get": {
                    "operationId": "users.GetEvents",
                    "parameters": [USER_ID, EVENT_ID, select_events],
                    "responses": {"200": answer("Retrieved navigation property", event), **ERRORS},
                },
                "patch": {
                    "operationId": "users.UpdateEvents",
                    "parameters": [USER_ID, EVENT_ID],
                    "requestBody": body(event),
                    "responses": {"200": answer("Success", event), **ERRORS},
                },
                "delete": {
                    "operationId": "users.DeleteEvents",
                    "parameters": [
                        USER_ID,
                        EVENT_ID,
                        {"name": "If-Match", "in": "header", "schema": {"type": "string"}},
                    ],
                    "responses": {"204": answer("Success"), **ERRORS},
                },
            },
            **event_actions,
            "/users/{user-id}/messages": {
                "get": {
                    "operationId": "users.ListMessages",
                    "parameters": [
                        USER_ID,
                        PREFER,
                        QUERY["top"],
                        QUERY["search"],
                        QUERY["filter"],
                        QUERY["count"],
                        QUERY["orderby"],
                        select_messages,
                    ],
                    "responses": {
                        "200": answer(
                            "Retrieved collection",
                            {"$ref": f"{SCHEMA_REF}microsoft.graph.messageCollectionResponse"},
                        ),
                        **ERRORS,
                    },
                }
            },
            "/users/{user-id}/messages/{message-id}": {
                "get": {
                    "operationId": "users.GetMessages",
                    "parameters": [USER_ID, MESSAGE_ID, PREFER, select_messages],
                    "responses": {"200": answer("Retrieved navigation property", message), **ERRORS},
                }
            },
            "/users/{user-id}/messages/{message-id}/attachments": {
                "get": {
                    "operationId": "users.messages.ListAttachments",
                    "parameters": [USER_ID, MESSAGE_ID, PREFER, QUERY["top"], select_attachments],
                    "responses": {
                        "200": answer(
                            "Retrieved collection",
                            {"$ref": f"{SCHEMA_REF}microsoft.graph.attachmentCollectionResponse"},
                        ),
                        **ERRORS,
                    },
                }
            },
            "/users/{user-id}/messages/{message-id}/attachments/{attachment-id}": {
                "delete": {
                    "operationId": "users.messages.DeleteAttachments",
                    "parameters": [USER_ID, MESSAGE_ID, ATTACHMENT_ID, PREFER],
                    "responses": {"204": answer("Success"), **ERRORS},
                }
            },
            "/users/{user-id}/messages/{message-id}/createReply": answer_draft("createReply"),
            "/users/{user-id}/messages/{message-id}/createReplyAll": answer_draft("createReplyAll"),
            "/users/{user-id}/messages/{message-id}/createForward": answer_draft("createForward"),
            "/users/{user-id}/messages/{message-id}/send": {
                "post": {
                    "operationId": "users.user.messages.message.send",
                    "parameters": [USER_ID, MESSAGE_ID, PREFER],
                    # No body; the service answers 202 Accepted (https://learn.microsoft.com/graph/api/message-send).
                    "responses": {"202": answer("Accepted"), "204": answer("Success"), **ERRORS},
                }
            },
            "/users/{user-id}/sendMail": {
                "post": {
                    "operationId": "users.user.sendMail",
                    "parameters": [USER_ID],
                    "requestBody": body(action_body("sendMail", "graph.user")),
                    # The converter answers 204 for an action without a return type; the service
                    # answers 202 Accepted (https://learn.microsoft.com/graph/api/user-sendmail).
                    "responses": {"202": answer("Accepted"), "204": answer("Success"), **ERRORS},
                }
            },
        },
        "components": {
            "schemas": schemas,
            "responses": {
                "error": answer("error", {"$ref": f"{SCHEMA_REF}microsoft.graph.ODataErrors.ODataError"})
            },
        },
    }


def _own_properties(element: ET.Element) -> list[str]:
    return [c.get("Name", "") for c in element if c.tag == f"{EDM}Property"]


def _inherited_properties(csdl: Csdl, name: str) -> list[str]:
    """The type's own properties and every base type's but entity's ``id`` (listed first apart)."""
    found: list[str] = []
    element: ET.Element | None = csdl.types[name]
    while element is not None:
        found.extend(p for p in _own_properties(element) if p != "id" and p not in found)
        base = element.get("BaseType")
        element = csdl.types.get(base.removeprefix("graph.")) if base else None
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    clone = Path(argv[1])
    # git from PATH on the caller's own clone: a developer's tool, no untrusted input.
    git = ["git", "-C", str(clone)]
    commit = subprocess.run(  # noqa: S603
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    xml = subprocess.run(  # noqa: S603
        [*git, "show", f"{commit}:{CSDL_PATH}"], check=True, capture_output=True
    ).stdout
    # Microsoft's published metadata at a named commit, not input from anyone else.
    document = subset(ET.fromstring(xml), commit)  # noqa: S314
    json.dump(document, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
