"""Triton's MLIR_ENABLE_DUMP log cut into the two TTGIR dumps the zoo keeps:
the pipeliner's input and its scheduled loops. Pure text, no Triton needed;
kernel_zoo.py and zoo_gpu.py both use it."""


# The pipeliner dumps kept, by the header that starts them.
INPUT_HEADER = "IR Dump Before TritonGPUAssignLatencies"
SCHEDULED_HEADERS = ("IR Dump Before TritonGPUPipeline",
                     "SoftwarePipeliner internal IR Dump After: LowerLoops",
                     "SoftwarePipeliner internal IR Dump After: ExpandLoops")


def dump_sections(text):
    """The `// -----// ...` sections of an MLIR_ENABLE_DUMP log, in order:
    [(header line, the section's text, header included)]."""
    sections, current = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("// -----//"):
            current = [line.strip(), [line]]
            sections.append(current)
        elif current is not None:
            current[1].append(line)
    return [(h, "".join(body).rstrip("\n") + "\n") for h, body in sections]


def split_dumps(text):
    """{'input': the last dump before tritongpu-assign-latencies, 'scheduled':
    the last dump before tritongpu-pipeline and the pipeliner's own dumps
    after it, two blank lines apart; None where a dump is missing}. The
    last ones: a compile of several kernels dumps each."""
    sections = dump_sections(text)
    found = {"input": None}
    for header, body in sections:
        if INPUT_HEADER in header:
            found["input"] = body
    scheduled = []
    for header, body in sections:
        if SCHEDULED_HEADERS[0] in header:
            scheduled = [body]
        elif scheduled and any(h in header for h in SCHEDULED_HEADERS[1:]):
            scheduled.append(body)
    found["scheduled"] = "\n\n".join(scheduled) if scheduled else None
    return found
