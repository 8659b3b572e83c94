#!/usr/bin/env bash
# Times ./cachesim on a generated lackey trace of 10 million data accesses (each
# after an I line, as lackey writes them) and prints accesses per second. The
# trace (~300 MB) is made once under build/ and reused; the goal is under 2 s.
set -euo pipefail
cd "$(dirname "$0")/.."

accesses=10000000
trace=build/cachesim-bench.trace
geometry=(-s 6 -E 8 -b 6) # 32 KiB, 8-way, 64-byte blocks: a typical L1d

if [ ! -s "$trace" ] || [ "$trace" -ot "$0" ]; then
  mkdir -p build
  echo "cachesim bench: generating $trace ($accesses accesses)..." >&2
  # A mix that exercises hits, misses and evictions alike: sequential sweeps over a
  # 1 MiB array, a 4 KiB-stride walk that fights over few sets, and random
  # accesses in a 64 MiB heap; loads, stores and modifies, sizes 1 to 8.
  awk -v n="$accesses" 'BEGIN {
    srand(42); split("L S M L", kinds, " ");
    for (i = 0; i < n; i++) {
      r = i % 3;
      if (r == 0) addr = 4194304 + (i * 4) % 1048576;
      else if (r == 1) addr = 16777216 + (i * 4096) % 8388608;
      else addr = 67108864 + int(rand() * 67108864);
      printf "I  %08x,3\n %s %08x,%d\n", 4198400 + (i % 4096), kinds[1 + i % 4], addr, 1 + i % 8;
    }
  }' > "$trace.tmp"
  mv "$trace.tmp" "$trace"
fi

start=$(date +%s%N)
./cachesim "${geometry[@]}" -t "$trace" > build/cachesim-bench.out
end=$(date +%s%N)
seconds=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')
rate=$(awk -v n="$accesses" -v ns=$((end - start)) 'BEGIN { printf "%.1f", n / (ns / 1e9) / 1e6 }')
echo "cachesim bench: $accesses accesses (${geometry[*]}) in ${seconds} s = ${rate} M accesses/s"
sed 's/^/cachesim bench:   /' build/cachesim-bench.out
