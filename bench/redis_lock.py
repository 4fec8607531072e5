#!/usr/bin/env python3
"""The Python anchor of issue 4's gate benchmark: redis-py's Lock (Debian's python3-redis) doing
acquire(blocking=False) + release on a distinct key per iteration, on one connection, timed with
time.perf_counter_ns. Prints p50/p99 in microseconds and one BENCH_RESULT JSON line.

    bench/redis_lock.py URL [--iterations N] [--warmup N]
"""
import argparse
import json
import sys
import time

import redis


def percentile(sorted_samples, p):
    index = int(p * (len(sorted_samples) - 1) + 0.5)
    return sorted_samples[min(index, len(sorted_samples) - 1)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--warmup", type=int, default=1000)
    args = parser.parse_args()

    client = redis.Redis.from_url(args.url, socket_timeout=1, socket_connect_timeout=5)
    client.ping()
    counter = 0

    def once():
        nonlocal counter
        lock = client.lock("bench:pylock:%d" % counter, timeout=30)
        counter += 1
        start = time.perf_counter_ns()
        if not lock.acquire(blocking=False):
            sys.exit("redis_lock.py: acquire did not acquire")
        lock.release()
        return (time.perf_counter_ns() - start) / 1000.0

    for _ in range(args.warmup):
        once()
    samples = sorted(once() for _ in range(args.iterations))
    p50, p99 = percentile(samples, 0.50), percentile(samples, 0.99)
    print("redis-py %s Lock acquire+release: p50 = %.1f us, p99 = %.1f us (%d iterations)"
          % (redis.__version__, p50, p99, args.iterations))
    print("BENCH_RESULT " + json.dumps({"redis_py_p50_us": round(p50, 1),
                                       "redis_py_p99_us": round(p99, 1),
                                       "redis_py_version": redis.__version__,
                                       "iterations": args.iterations}))


if __name__ == "__main__":
    main()
