"""The review's mailer is built on its first send, once, and a failure to build loses no later send."""

from __future__ import annotations

import pytest
from multitool.ports.mail import DeferredMailer, Mail, MailUnavailable

from tests.support.review_support import RecordingMailer

MAIL = Mail(to=("priya@example.com",), subject="The doc", text="Here it is.")


def test_nothing_is_built_until_the_first_send_and_then_only_once() -> None:
    built: list[RecordingMailer] = []

    def build() -> RecordingMailer:
        built.append(RecordingMailer())
        return built[-1]

    mailer = DeferredMailer(build)
    assert built == []

    first, second = mailer.send(MAIL), mailer.send(MAIL)

    assert len(built) == 1
    assert built[0].sent == [MAIL, MAIL]
    assert (first.message_id, second.message_id) == ("msg-1", "msg-2")


def test_a_mailer_that_could_not_be_built_is_built_again_on_the_next_send() -> None:
    attempts: list[int] = []
    recording = RecordingMailer()

    def build() -> RecordingMailer:
        attempts.append(1)
        if len(attempts) == 1:
            raise MailUnavailable("SES endpoint could not be resolved")
        return recording

    mailer = DeferredMailer(build)
    with pytest.raises(MailUnavailable):
        mailer.send(MAIL)

    assert mailer.send(MAIL).message_id == "msg-1"
    assert recording.sent == [MAIL]
