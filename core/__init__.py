"""Transport-neutral logic of Biographer: never imports telegram, discord or SQL."""

import os as _os

# onnxruntime (the embedding model; faster-whisper's voice filter) in its recent releases (1.32
# here) sends usage events to Microsoft from the moment it is imported (the process, the machine,
# the models it loads and their sessions) and keeps a device id in ~/.cache/Microsoft. Nothing is
# to leave the owner's machine unasked: its opt-out, read once before that import, is set here,
# where every command and service starts; ORT_DISABLE_TELEMETRY=0 in the environment sends them.
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
