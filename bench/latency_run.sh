#!/bin/sh
# Search latency, all of it in one go (README "Search latency"): the side-by-side latencies,
# memory, short-list recall, the vector half's filtered table and insert cost at 100k chunks,
# the latencies and memory at 1M, and the vector half's filtered table at 1M; each JSON output
# carries the load averages it ran at. 13.4 minutes at load 6-12 on 2 shared cores with 200 queries
# a round at 1M (10 of them at 1M); with the 100 here, and on a quiet machine, well under 10.
#
#   sh bench/latency_run.sh [STORE_100K] [STORE_1M] [OUT]
#
# Stores: bench/latency.py build DIR --chunks N --chunk-chars 900 (a build cut short resumes
# with --resume). They are opened once first, so that any migration runs before the timing.
set -eu
small=${1:-/tmp/latstores/lat100k-900}
big=${2:-/tmp/latstores/lat1m-900}
out=${3:-/tmp/latency-$(date -u +%Y%m%dT%H%MZ)}
here=$(dirname "$0")
python=${PYTHON:-python}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}  # as the children run (latency.py in_child)
mkdir -p "$out"
for store in "$small" "$big"; do
    "$python" -c "import asyncio, sys; sys.path.insert(0, '$here/..'); from pathlib import Path
from storage.db import open_database
async def main():
    async with open_database(Path('$store') / 'biographer.sqlite3'):
        pass
asyncio.run(main())"
done
# each store's file read once into the OS's page cache, as a store in daily use is: this machine
# reclaims the pages of files left unread for a while (kdamond), and a search of a store whose
# pages went back to the disk waits on it (1M: 95 ms in an earlier run, 22-37 ms with them cached);
# both sides read the same file, so the cache favours neither
for store in "$small" "$big"; do
    cat "$store/biographer.sqlite3" > /dev/null
done
uptime > "$out/uptime-start.txt"
"$python" "$here/latency.py" query "$small" --runs 200 --rounds 2 > "$out/query-100k.json"
"$python" "$here/latency.py" query "$big" --runs 100 --rounds 2 --latency-only > "$out/query-1m.json"
"$python" "$here/latency.py" vectors "$big" --runs 40 > "$out/vectors-1m.json"
uptime > "$out/uptime-end.txt"
"$python" - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
for name in ("query-100k", "query-1m"):
    d = json.loads((out / f"{name}.json").read_text())
    lat, cpu = d["latency"], d["cpu_time"]
    print(name, "load", d["load_average"], "->", d["load_average_after"])
    for who in ("biographer", "baseline"):
        print(f"  {who:10} hybrid {lat[who]['hybrid']}  cpu {cpu[who]['hybrid']}  keyword {lat[who]['keyword']['p50_ms']}"
              f"  semantic {lat[who]['semantic']['p50_ms']}  memory {d['after_queries'][who]}")
    print("  hybrid p50 ratio", d["hybrid_p50_ratio"])
    for table in ("vector_half_one_shot", "vector_half_kept"):
        for case, v in d.get(table, {}).items():
            print(f"  {table} {case}: {v}")
v = json.loads((out / "vectors-1m.json").read_text())
print("vectors-1m load", v["load_average"], "->", v["load_average_after"])
for case, row in v["one_shot"].items():
    print(f"  one_shot {case}: {row}")
PY
echo "outputs in $out"
