"""How much memory each function gets, and so how much CPU.

Lambda allocates CPU in proportion to the memory configured, from 128 MB to 10,240 MB in 1 MB steps;
at 1,769 MB a function has the equivalent of one vCPU
(https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). A cold start here is CPU
work (importing boto3, pydantic, Powertools and multitool, then the first request): 380-460 ms of
CPU on the bench's host (`python -m benchmarks cold_start`), so about 1.3-1.6 s at 512 MB (0.29 of
a vCPU) and 0.65-0.8 s at 1,024 MB. Work that needs CPU costs the same GB-seconds at either size
below one vCPU (twice the memory, half the time); only waiting (the model, DynamoDB, SES) costs more
with more memory, and duration is billed for init as for the handler (https://aws.amazon.com/lambda/pricing/).

So the functions every deployment's users wait on, the orchestrator (every chat turn) and the
review function (every confirm), get :data:`INTERACTIVE_MEMORY_MB`, and so does the user Gateway's
interceptor (``executor=gateway``), which runs before every MCP client's ``tools/call``: its cold
start is about 300 ms of CPU, over 2 s at 256 MB. The action groups keep :data:`DEFAULT_MEMORY_MB`:
the default deploy has none (the harness runs the tools inside the orchestrator); only
``runtime=agent`` with Lambda executors and ``executor=gateway`` make them.
``-c orchestratorMemory=…`` and ``-c reviewMemory=…`` choose others (docs/deploy.md).
"""

from __future__ import annotations

MIN_MEMORY_MB = 128
MAX_MEMORY_MB = 10_240
"""Lambda's range for a function's memory."""
DEFAULT_MEMORY_MB = 512
"""Every other function: the action groups, where a deploy has them."""
INTERACTIVE_MEMORY_MB = 1024
"""The orchestrator, the review function and the user Gateway's interceptor: about 0.58 of a vCPU,
twice the CPU of 512 MB."""
