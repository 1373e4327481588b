# Attack (a daemon started at import, before the sandbox): a Python candidate's module is imported
# by kjudge-worker-py before the worker applies its sandbox, with every privilege of the
# controller's user (root here). At import this module forks a child that leaves the worker's
# process group and session (os.setsid: the watchdog's killpg and PR_SET_PDEATHSIG no longer reach
# it), closes the worker's channel and arena descriptors, and then, for 60 s, duty-cycles this
# evaluation's baseline workers (found through /proc/*/cmdline "kjudge-worker", told apart by
# their working directory, the scratch directory <run>/baseline-* beside the candidate's):
# SIGSTOP for 1 ms, SIGCONT for 0.25 ms (with equal halves a stopped worker started its sample at
# the SIGCONT and mostly finished inside the run window). Every baseline sample (reference,
# cpu_fast, torch:eager) takes 2-4x as long; the candidate's own workers are left alone. A stop is
# a voluntary context switch, so few of the baselines' samples are set aside as "disturbed" (12 of
# 294). The daemon outlives kjudge (it exits by itself after 60 s, resuming every process it
# stopped, so that it does not linger on a test machine).
# The kernel is torch.softmax: the same work as the torch:eager baseline.
# Pre-fix (b5c5f0e), 2-core VM, --budget 3: ok_faster, 1.72x [1.38, 2.30] (torch:eager's honest
# speed: the same kernel without the daemon is ~0.95-1.0x); reference 9.2 ms instead of 2.1,
# cpu_fast 1.6 ms instead of 0.7, torch:eager 3.1 ms instead of 0.63 on bench-0; the daemon
# (own session, parent 1) still running after kjudge exited.
# Expected after the fix: hack, rule sandbox_violation (the module is imported inside the
# sandbox: setsid, and signals to other processes, are forbidden before the first byte of
# candidate code runs).
import fcntl
import os
import signal
import time

LIFETIME_S = 60.0  # the daemon's own limit
STOP_S, RUN_S = 0.001, 0.00025  # duty cycle imposed on the baselines (s)


def _baseline_workers(me, run):
    # Only this evaluation's baselines (scratch directories beside ours): other evaluations on the
    # machine (a test suite running at the same time) are left alone.
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if b"kjudge-worker" not in f.read():
                    continue
            cwd = os.readlink(f"/proc/{d}/cwd")
            if os.path.dirname(cwd) == run and os.path.basename(cwd).startswith("baseline"):
                pids.append(int(d))
        except OSError:
            continue
    return pids


def _daemon(run):
    os.setsid()  # out of the worker's process group: killpg(worker) misses us
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, 1024)  # the worker's channel (fd 3) and arena (fd 4)
    try:  # one daemon per machine, however many candidate workers import this module
        lock = os.open("/tmp/kjudge-redteam-py-fork-daemon.lock", os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os._exit(0)
    start = time.monotonic()
    victims, scanned = [], 0.0
    while time.monotonic() - start < LIFETIME_S:
        if time.monotonic() - scanned > 0.5:
            victims, scanned = _baseline_workers(os.getpid(), run), time.monotonic()
        for p in victims:
            try:
                os.kill(p, signal.SIGSTOP)
            except OSError:
                pass
        time.sleep(STOP_S)
        for p in victims:
            try:
                os.kill(p, signal.SIGCONT)
            except OSError:
                pass
        time.sleep(RUN_S)
    for p in _baseline_workers(os.getpid(), run):
        try:
            os.kill(p, signal.SIGCONT)
        except OSError:
            pass
    os._exit(0)


_run = os.path.dirname(os.getcwd())  # the worker runs in its scratch directory <run>/candidate
if os.fork() == 0:
    try:
        _daemon(_run)
    finally:
        os._exit(0)

import torch  # noqa: E402  (after the fork: the daemon needs none of it)


def kernel(x):
    return torch.softmax(x, dim=-1)
