"""``multitool doctor``: a read-only preflight of the caller's own account and region.

Run it before ``cdk deploy`` (can this account and region run the default model and runtime?) and
after it (is the stack complete, the harness ready, the Jira secret filled?). Every check is a
read-only call (the sender's two: the address, then its domain) answered as one :class:`Finding`:
``ok``, ``warn`` or ``fail``, what is wrong and the one command or console step that fixes it.
``fail`` is kept for what stops a first chat turn (no credentials, a region without the runtime,
a model the account cannot call, a broken stack);
``warn`` for what stops one kind of action later (an unverified sender, the SES sandbox, the Jira
placeholder) and for what the doctor itself could not see (access denied to its read, throttling).

The calls and their shapes are botocore's service models (``sts``, ``bedrock``, ``lambda``, ``sesv2``,
``cloudformation``, ``bedrock-agentcore-control``, ``bedrock-agent``, ``secretsmanager``); the
clients are handed in, so tests run the same code on real clients under botocore's Stubber.
Nothing here writes.

The findings, the target and the deploy's defaults (:mod:`.findings`) are apart from the checks,
one module per service area (:mod:`.account`, :mod:`.model`, :mod:`.mail`, :mod:`.stack`), each a
mixin of :class:`~.base.Checks` (the clients and the one error mapping); :mod:`.checkup`'s
:class:`~.checkup.Doctor` runs them in order.
"""
