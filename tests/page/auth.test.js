import assert from "node:assert/strict";
import { test } from "node:test";

import { claimsOf } from "../../web/auth.js";

// A JWT as Cognito writes one: base64url (RFC 7515 section 2, no padding) of UTF-8 JSON.
const encode = (value) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
const jwt = (claims) => `${encode({ alg: "RS256", kid: "k" })}.${encode(claims)}.signature`;

test("a token's claims are read, names in any script included", () => {
  const claims = { sub: "5f1c", email: "jose@example.com", name: "José Ñúñez 田中", exp: 1796000000, "cognito:username": "jose" };
  assert.deepEqual(claimsOf(jwt(claims)), claims);
});

test("claims whose encoding needs the base64url characters (- and _) are read", () => {
  const claims = { sub: "a", name: "??>>~~" }; // encodes with "_" and "-" where base64 has "/" and "+"
  const token = jwt(claims);
  assert.match(token.split(".")[1], /[-_]/);
  assert.deepEqual(claimsOf(token), claims);
});

test("what is not a token has no claims", () => {
  assert.deepEqual(claimsOf("not-a-token"), {});
  assert.deepEqual(claimsOf("a.%%%.c"), {});
});
