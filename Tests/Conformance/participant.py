#!/usr/bin/env python3
"""A ScreenTimeHarness participant written from the protocol's documents alone — docs/PROTOCOL.md,
and docs/HISTORY.md §8 for its trace lines (standard library only; ctypes for inotify). Section
numbers below are PROTOCOL.md's unless they name another document (the documents share one
numbering).

    participant.py increment --root R --group G --suite S --key K --count N   N locked read-modify-writes, then "done <last>"
    participant.py read      --root R --group G --suite S --key K              prints the value ("absent" when there is none)
    participant.py post      --root R --name X --count N                       N posts, then "done <generation>"
    participant.py set-state --root R --name X --state S                       notify_set_state, then "done"
    participant.py state     --root R --name X                                 prints "<generation> <state>"
    participant.py observe   --root R --name X [--name Y ...] --stop STOP      "ready", then "cb <name> <generation>" per
                                                                               callback; on a post of STOP prints
                                                                               "last <name> <generation>" per name and exits
    participant.py pong                                                        the ping-pong test system's pong role, run by
                                                                               `harness` (SCREENTIME_DEVICE_ROOT, _RUN_DIR,
                                                                               _VARIANT): takes part in virtual time (§9)

Exit status 0, or 2 with one line on stderr.
"""
import argparse
import ctypes
import errno
import fcntl
import json
import math
import os
import plistlib
import select
import stat
import struct
import sys
import time

LOCK_TIMEOUT_S = 5.0          # §1: waiting for a lock is bounded
MAX_SUITE_BYTES = 4 << 20     # §3: one limit, reads and writes
MAX_VALUE_BYTES = 512 << 10   # §3
MAX_RECORD_BYTES = 64         # §4.2
U64 = (1 << 64) - 1

_temp_counter = 0


class ProtocolError(Exception):
    pass


# §1 ------------------------------------------------------------------------------------------

def open_regular(dir_fd, name, flags, mode=0o600):
    """§1: O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, then fstat: anything but a regular file is
    "not a regular file". Returns None when absent."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENODEV):
            raise ProtocolError("not a regular file")
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ProtocolError("not a regular file")
    return fd


def open_dir(root, relative, create=True):
    """§1: every component with O_NOFOLLOW | O_DIRECTORY; a symlink is refused."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    for comp in [c for c in relative.split("/") if c]:
        if comp in (".", "..") or "\0" in comp:
            raise ProtocolError("invalid path component %r" % comp)
        if create:
            try:
                os.mkdir(comp, 0o700, dir_fd=fd)
            except FileExistsError:
                pass
        nfd = os.open(comp, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        os.close(fd)
        fd = nfd
    return fd


def read_all(fd, limit):
    data = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return data
        data += chunk
        if len(data) > limit:
            raise ProtocolError("larger than %d bytes" % limit)


def temp_name(final, tag=None):
    """§1: .tmp.<pid>.<counter>.[<tag>.]<final-name>"""
    global _temp_counter
    _temp_counter += 1
    base = ".tmp.%d.%d." % (os.getpid(), _temp_counter)
    if tag:
        base += tag + "."
    return base + final


def write_atomically(dir_fd, name, data, fsync, tag=None, before_rename=None):
    """§1: temp (O_CREAT | O_EXCL | O_NOFOLLOW, 0600), write, optional fsync, rename.
    before_rename(inode): told the temp's inode (the file's once renamed) just before the rename."""
    tmp = temp_name(name, tag)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if fsync:
            os.fsync(fd)
        inode = os.fstat(fd).st_ino
    except BaseException:
        os.close(fd)
        os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.close(fd)
    if before_rename is not None:
        before_rename(inode)
    os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    return inode


class Lock:
    """§1: flock on a lock file never renamed; bounded wait; an 8-byte little-endian counter."""

    def __init__(self, dir_fd, name):
        fd = open_regular(dir_fd, name, os.O_RDWR | os.O_CREAT)
        if fd is None:
            raise ProtocolError("lock file vanished")
        self.fd = fd

    def __enter__(self):
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        backoff = 0.00001
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ProtocolError("lock timeout (is its holder stopped?)")
                time.sleep(backoff)
                backoff = min(backoff * 2, 0.001)

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)

    def read_counter(self):
        # Shorter than 8 bytes: the low bytes, the missing high bytes are 0.
        raw = os.pread(self.fd, 8, 0)
        return int.from_bytes(raw, "little") if raw else 0

    def write_counter(self, value):
        os.pwrite(self.fd, struct.pack("<Q", value & U64), 0)


def record_quarantine(root, file, moved_to, reason):
    """§6: one JSON line, one write(2) on an O_APPEND fd; the same line on stderr."""
    line = json.dumps({"t": time.time(), "pid": os.getpid(), "file": file, "movedTo": moved_to, "reason": reason},
                      sort_keys=True) + "\n"
    sys.stderr.write("screentime: quarantined %s -> %s: %s\n" % (file, moved_to, reason))
    root_fd = open_dir(root, "", create=False)
    try:
        fd = open_regular(root_fd, "quarantine.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.write(fd, line.encode())
        os.close(fd)
    finally:
        os.close(root_fd)


# §3 shared defaults ------------------------------------------------------------------------

def encoded_size(value):
    # The canonical encoding's size only matters near the limit; plistlib's is close enough to
    # refuse what the Swift writers refuse (both indent with tabs).
    return len(plistlib.dumps({"k": value}, fmt=plistlib.FMT_XML)) - 200


KEY_LEFT_OUT = "key left out of the suite:"


def read_suite_keeping_good_keys(data, on_bad_key):
    """§3: a top-level key whose value is well-formed XML but no value of its element's type is
    left out alone (on_bad_key(key, reason)); any other problem is the whole suite's."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise ProtocolError("does not parse: %s" % e)
    if root.tag == "plist":
        if len(root) != 1:
            raise ProtocolError("a plist holds one root element")
        root = root[0]
    if root.tag != "dict":
        raise ProtocolError("root is not a <dict>")
    children = list(root)
    if len(children) % 2:
        raise ProtocolError("a <key> without its value")
    suite = {}
    for key, value in zip(children[0::2], children[1::2]):
        if key.tag != "key":
            raise ProtocolError("expected <key>, found <%s>" % key.tag)
        one = (b'<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>k</key>'
               + ET.tostring(value) + b"</dict></plist>")
        try:
            suite[key.text or ""] = plistlib.loads(one, fmt=plistlib.FMT_XML)["k"]
        except Exception as e:  # noqa: BLE001 - a value of the wrong form is that key's alone
            on_bad_key(key.text or "", "bad %s: %s" % (value.tag, e))
    return suite


def read_suite(dir_fd, name, on_bad_key=None):
    """The suite's dict, or raises ProtocolError (corrupt) — an empty or binary plist included.
    A key whose value is no value of its type is left out and told to on_bad_key(key, reason)."""
    fd = open_regular(dir_fd, name, os.O_RDONLY)
    if fd is None:
        return {}
    try:
        data = read_all(fd, MAX_SUITE_BYTES)
    finally:
        os.close(fd)
    if not data.lstrip().startswith(b"<"):
        raise ProtocolError("not an XML property list")
    on_bad_key = on_bad_key or (lambda k, why: sys.stderr.write("participant.py: %s %r: %s\n" % (KEY_LEFT_OUT, k, why)))
    try:
        suite = plistlib.loads(data, fmt=plistlib.FMT_XML)
    except Exception:  # noqa: BLE001 - the whole suite is corrupt unless one key's value is to blame
        suite = read_suite_keeping_good_keys(data, on_bad_key)
    if isinstance(suite, dict):
        # plistlib reads any integer; §3's are signed 64-bit, as the Swift reader's.
        for k in [k for k, v in suite.items() if not fits_int64(v)]:
            on_bad_key(k, "bad integer: outside the signed 64-bit range")
            del suite[k]
    if not isinstance(suite, dict):
        raise ProtocolError("root is not a <dict>")
    if len(data) > MAX_VALUE_BYTES // 16 and any(encoded_size(v) > MAX_VALUE_BYTES for v in suite.values()):
        raise ProtocolError("a value is over the 512 KiB limit")
    return suite


INT64 = (-(1 << 63), (1 << 63) - 1)


def fits_int64(value):
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return INT64[0] <= value <= INT64[1]
    if isinstance(value, dict):
        return all(fits_int64(v) for v in value.values())
    if isinstance(value, list):
        return all(fits_int64(v) for v in value)
    return True


def is_xml_char(c):
    o = ord(c)
    return o in (0x9, 0xA, 0xD) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or 0x10000 <= o <= 0x10FFFF


def check_writable(value, key="suite"):
    """§3: integers are signed 64-bit; strings and keys hold only XML 1.0 characters."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not INT64[0] <= value <= INT64[1]:
        raise ProtocolError("%s: integer %d is outside the signed 64-bit range" % (key, value))
    if isinstance(value, str) and not all(is_xml_char(c) for c in value):
        raise ProtocolError("%s: a string holds a character XML 1.0 cannot hold" % key)
    if isinstance(value, dict):
        for k, v in value.items():
            check_writable(k, key)
            check_writable(v, k)
    if isinstance(value, list):
        for v in value:
            check_writable(v, key)


def note_replaced_plist(root, prefs, dir_fd, name, lock):
    """§3: under the lock, the plist in place is the committed (word 1) or pending (word 2) one;
    any other was put there from outside the protocol: recorded (§6), then written over."""
    raw = os.pread(lock.fd, 24, 0).ljust(24, b"\0")
    committed, pending = struct.unpack("<QQ", raw[8:24])
    if committed == 0 and pending == 0:
        return
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISREG(st.st_mode) and st.st_ino not in (committed, pending):
        file = prefs + "/" + name
        record_quarantine(root, file, file, "replaced from outside the protocol: inode %d, its writers last put %d in place "
                          "(pending %d); written over as found" % (st.st_ino, committed, pending))


def update_suite(root, group, suite, change):
    prefs = "containers/%s/Library/Preferences" % group
    dir_fd = open_dir(root, prefs)
    name = suite + ".plist"
    try:
        lock = Lock(dir_fd, name + ".lock")
        with lock:
            note_replaced_plist(root, prefs, dir_fd, name, lock)
            try:
                current = read_suite(dir_fd, name, on_bad_key=lambda k, why: record_quarantine(
                    root, prefs + "/" + name, prefs + "/" + name, "%s %s: %s" % (KEY_LEFT_OUT, json.dumps(k), why)))
            except ProtocolError as e:
                aside = "%s.corrupt-%d" % (name, int(time.time() * 1000))
                os.rename(name, aside, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                lock.write_counter(lock.read_counter() + 1)
                record_quarantine(root, prefs + "/" + name, prefs + "/" + aside, str(e))
                current = {}
            result = change(current)
            check_writable(current)
            data = plistlib.dumps(current, fmt=plistlib.FMT_XML, sort_keys=True)
            if len(data) > MAX_SUITE_BYTES:
                raise ProtocolError("suite would be %d bytes; the limit is %d" % (len(data), MAX_SUITE_BYTES))
            # §3: the temp's inode is the pending plist (word 2) before the rename; after it, the
            # generation is bumped with that inode as the committed one (words 0-1, one pwrite).
            inode = write_atomically(dir_fd, name, data, fsync=True,
                                     before_rename=lambda ino: os.pwrite(lock.fd, struct.pack("<Q", ino & U64), 16))
            os.pwrite(lock.fd, struct.pack("<QQ", (lock.read_counter() + 1) & U64, inode & U64), 0)
            return result
    finally:
        os.close(dir_fd)


# §4 notifications --------------------------------------------------------------------------

def parse_record(data):
    """§4.2: 'v1 <generation> <state>\\n', canonical decimals only."""
    if len(data) > MAX_RECORD_BYTES or not data.endswith(b"\n"):
        return None
    parts = data[:-1].split(b" ")
    if len(parts) != 3 or parts[0] != b"v1":
        return None
    values = []
    for p in parts[1:]:
        if not p or len(p) > 20 or not p.isdigit() or (len(p) > 1 and p[:1] == b"0"):
            return None
        v = int(p)
        if v > U64:
            return None
        values.append(v)
    return values[0], values[1]


def read_record(dir_fd, name):
    """(generation, state); None for absent or corrupt (readers treat corrupt as absent)."""
    try:
        fd = open_regular(dir_fd, name, os.O_RDONLY)
    except ProtocolError:
        return None
    if fd is None:
        return None
    try:
        data = os.read(fd, MAX_RECORD_BYTES + 1)
    finally:
        os.close(fd)
    return parse_record(data)


def notify_dir(root):
    return open_dir(root, "notify")


def mutate(root, name, post, state=None):
    dir_fd = notify_dir(root)
    try:
        lock = Lock(dir_fd, ".lock")
        with lock:
            record, quarantined = None, False
            try:
                fd = open_regular(dir_fd, name, os.O_RDONLY)
                if fd is not None:
                    data = os.read(fd, MAX_RECORD_BYTES + 1)
                    os.close(fd)
                    record = parse_record(data)
                    quarantined = record is None
                    reason = "not a notify record"
            except ProtocolError as e:
                quarantined, reason = True, str(e)
            if quarantined:
                aside = ".corrupt-%d-%s" % (int(time.time() * 1000), name)
                os.rename(name, aside, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                record_quarantine(root, "notify/" + name, "notify/" + aside, reason)
            high = lock.read_counter()
            gen, cur_state = record if record else (0, 0)
            if post:
                g = max(gen, high)
                new_gen = 1 if g == U64 else g + 1
                new_state = cur_state
            else:
                new_gen = gen if record else (high if quarantined else 0)
                new_state = state
            words = (os.pread(lock.fd, 32, 0) + bytes(32))[:32]
            if not post or quarantined:
                # The state epoch (word 3): raised before the rename of a write that may change a
                # state, with the high-water; a poster that skips reading records reads them again.
                epoch = (int.from_bytes(words[24:32], "little") + 1) & U64
                os.pwrite(lock.fd, struct.pack("<Q", max(new_gen, high) & U64) + words[8:24] + struct.pack("<Q", epoch), 0)
            elif new_gen > high:
                lock.write_counter(new_gen)          # before the rename
            write_atomically(dir_fd, name, b"v1 %d %d\n" % (new_gen, new_state), fsync=False, tag="g%d" % new_gen)
            # Landed (after the rename): the high-water this write settled on, one more landed
            # write. Optional; a reader caches generations only while they match the high-water.
            sequence = int.from_bytes(words[16:24], "little")
            os.pwrite(lock.fd, struct.pack("<QQ", max(new_gen, high) & U64, (sequence + 1) & U64), 8)
            return new_gen
    finally:
        os.close(dir_fd)


# inotify through ctypes
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_Q_OVERFLOW = 0x00004000
IN_ONLYDIR = 0x01000000
IN_CLOEXEC = 0o2000000
EVENT_HEADER = struct.Struct("iIII")   # wd, mask, cookie, len


def generation_from_temp(temp, name):
    """§4.3: '.tmp.<pid>.<n>.g<gen>.<name>' → gen, else None."""
    parts = temp.split(".", 4)
    if len(parts) != 5 or parts[0] != "" or parts[1] != "tmp" or not parts[2].isdigit() or not parts[3].isdigit():
        return None
    tag, _, rest = parts[4].partition(".")
    if rest != name or not tag.startswith("g") or not tag[1:].isdigit():
        return None
    return int(tag[1:])


def observe(root, names, stop):
    libc = ctypes.CDLL(None, use_errno=True)
    ifd = libc.inotify_init1(IN_CLOEXEC)
    if ifd < 0:
        raise ProtocolError("inotify_init1: errno %d" % ctypes.get_errno())
    dir_fd = notify_dir(root)
    path = os.path.join(root, "notify").encode()
    # §4.3: the watch first, IN_MOVED_FROM in the mask; then the registration generations.
    if libc.inotify_add_watch(ifd, path, IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR) < 0:
        raise ProtocolError("inotify_add_watch: errno %d" % ctypes.get_errno())
    watched = list(names) + [stop]
    last = {n: (read_record(dir_fd, n) or (0, 0))[0] for n in watched}
    print("ready", flush=True)

    def deliver(n, gen):
        if gen is None or gen == last[n]:     # compare with !=: generations wrap
            return False
        last[n] = gen
        if n == stop:
            for m in names:
                print("last %s %d" % (m, (read_record(dir_fd, m) or (last[m], 0))[0]), flush=True)
            return True
        print("cb %s %d" % (n, gen), flush=True)
        return False

    def rescan():
        for n in watched:
            rec = read_record(dir_fd, n)
            if rec and deliver(n, rec[0]):
                return True
        return False

    if rescan():
        return
    moved_from = {}
    buf = b""
    while True:
        readable, _, _ = select.select([ifd], [], [], 60)
        if not readable:
            raise ProtocolError("no event for 60 s")
        buf += os.read(ifd, 65536)
        while len(buf) >= EVENT_HEADER.size:
            wd, mask, cookie, length = EVENT_HEADER.unpack_from(buf)
            if len(buf) < EVENT_HEADER.size + length:
                break
            name = buf[EVENT_HEADER.size:EVENT_HEADER.size + length].split(b"\0", 1)[0].decode("utf-8", "replace")
            buf = buf[EVENT_HEADER.size + length:]
            if mask & IN_Q_OVERFLOW:
                moved_from.clear()
                if rescan():
                    return
            elif mask & IN_MOVED_FROM:
                if len(moved_from) > 1024:
                    moved_from.clear()
                moved_from[cookie] = name
            elif mask & IN_MOVED_TO:
                temp = moved_from.pop(cookie, None)
                if name.startswith(".") or name not in last:
                    continue
                gen = generation_from_temp(temp, name) if temp else None
                if gen is None:
                    rec = read_record(dir_fd, name)
                    gen = rec[0] if rec else None
                if deliver(name, gen):
                    return


# §2 the clock, HISTORY.md §8 traces, §9 virtual time -----------------------------------------

def device_now(root):
    """§2: device unix seconds (stepped: epoch + offset; fixed: + elapsed monotonic x rate)."""
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = open_regular(root_fd, "clock", os.O_RDONLY)
        c = json.loads(read_all(fd, 4096)) if fd is not None else None
        if fd is not None:
            os.close(fd)
    finally:
        os.close(root_fd)
    if not c:
        return time.time()
    now = c["epochUnixSeconds"] + c.get("offsetSeconds", 0)
    if c.get("mode") != "stepped":
        now += (time.monotonic_ns() - c["anchorMonotonicNanos"]) / 1e9 * c["rate"]
    return now


class Trace:
    """HISTORY.md §8: one JSON line per event, one write(2) on an O_APPEND fd."""
    def __init__(self, run_dir, process, root):
        self.fd = os.open(os.path.join(run_dir, "trace", process + ".jsonl"), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        self.process, self.root = process, root

    def log(self, event, **fields):
        line = dict(fields, mono=time.monotonic_ns(), t=device_now(self.root), process=self.process, pid=os.getpid(), event=event)
        os.write(self.fd, (json.dumps(line) + "\n").encode())   # HISTORY.md §8: any JSON spacing


class Scheduler:
    """§9.1: idle reports on <root>/system/scheduler; None-like when no harness steps time."""
    def __init__(self, root):
        self.fd, self.seq, self.last = None, 0, None
        try:
            sys_fd = os.open(os.path.join(root, "system"), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                fd = os.open("scheduler", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW, dir_fd=sys_fd)
            finally:
                os.close(sys_fd)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENXIO):   # no harness steps time: report nothing
                return
            raise
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.close(fd)
            return
        self.fd = fd

    def report(self, next_time, consumed):
        """One line, one write; a report equal to the last but for seq is left out (and takes no seq)."""
        if self.fd is None:
            return
        state = (next_time, tuple(sorted(consumed.items())))
        if state == self.last:
            return
        next_text = "-" if next_time is None else "%.3f" % (math.ceil(next_time * 1000) / 1000)   # §9.1: round up
        fields = ["v1", str(os.getpid()), str(self.seq + 1), next_text, "-"] + ["%s=%d" % kv for kv in sorted(consumed.items())]
        line = ("\t".join(fields) + "\n").encode()
        if len(line) > 4000:
            raise ProtocolError("a report is over 4000 bytes")
        try:
            os.write(self.fd, line)
        except BlockingIOError:      # the pipe is full: the harness waits its bound, then looks again
            return
        except BrokenPipeError:      # the harness is gone
            sys.exit(0)
        self.seq += 1
        self.last = state


def pong():
    """The ping-pong system's pong (Tests/HarnessKitTests/Systems/PingPongPack.swift): on each
    post of pingpong.ping it reads `ball`, sets `returned`, traces `acknowledged`, posts pingpong.pong."""
    root, run_dir = os.environ["SCREENTIME_DEVICE_ROOT"], os.environ["SCREENTIME_RUN_DIR"]
    variant = os.environ.get("SCREENTIME_VARIANT", "hardened")
    group = "group.test.pingpong"
    trace = Trace(run_dir, "pong", root)
    trace.log("launched", variant=variant)
    libc = ctypes.CDLL(None, use_errno=True)
    ifd = libc.inotify_init1(IN_CLOEXEC)
    if ifd < 0 or libc.inotify_add_watch(ifd, os.path.join(root, "notify").encode(), IN_MOVED_TO | IN_ONLYDIR) < 0:
        raise ProtocolError("inotify: errno %d" % ctypes.get_errno())
    dir_fd = notify_dir(root)
    scheduler = Scheduler(root)
    ping, wake = "pingpong.ping", "system.wake.%d" % os.getpid()
    # §9.1: before the first callback, a name's taken-in generation is the one it had when observed.
    taken = {n: (read_record(dir_fd, n) or (0, 0))[0] for n in (ping, wake)}

    def return_ball():
        prefs = open_dir(root, "containers/%s/Library/Preferences" % group)
        try:
            ball = int(read_suite(prefs, group + ".plist").get("ball", 0))
        finally:
            os.close(prefs)
        if ball <= 0:
            return
        ack = ball - 1 if variant == "as-written" else ball

        def put(s):
            s["returned"] = ack
        update_suite(root, group, group, put)
        trace.log("acknowledged", ball=str(ball), returned=str(ack))
        mutate(root, "pingpong.pong", post=True)

    return_ball()
    scheduler.report(None, taken)
    while True:
        readable, _, _ = select.select([ifd], [], [], 1.0)
        if readable:
            os.read(ifd, 65536)       # which names moved does not matter: every observed record is read
        for n in (ping, wake):
            rec = read_record(dir_fd, n)
            if rec is None or rec[0] == taken[n]:     # compare with ==/!=: generations wrap (§4.2)
                continue
            taken[n] = rec[0]
            if n == ping:
                return_ball()
        scheduler.report(None, taken)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command")
    ap.add_argument("--root")
    ap.add_argument("--group", default="group.test")
    ap.add_argument("--suite", default="group.test")
    ap.add_argument("--key")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--name", action="append", default=[])
    ap.add_argument("--state", type=int, default=0)
    ap.add_argument("--stop", default="stop")
    a = ap.parse_args()
    if a.command == "increment":
        last = 0
        for _ in range(a.count):
            def bump(s):
                s[a.key] = int(s.get(a.key, 0)) + 1
                return s[a.key]
            last = update_suite(a.root, a.group, a.suite, bump)
        print("done %d" % last, flush=True)
    elif a.command == "set-int":
        def put(s):
            s[a.key] = a.state
        update_suite(a.root, a.group, a.suite, put)
        print("done", flush=True)
    elif a.command == "read":
        prefs_path = "containers/%s/Library/Preferences" % a.group
        prefs = open_dir(a.root, prefs_path)
        file = prefs_path + "/" + a.suite + ".plist"
        v = read_suite(prefs, a.suite + ".plist", on_bad_key=lambda k, why: record_quarantine(
            a.root, file, file, "%s %s: %s" % (KEY_LEFT_OUT, json.dumps(k), why))).get(a.key)
        print("absent" if v is None else v, flush=True)
    elif a.command == "post":
        gen = 0
        for _ in range(a.count):
            gen = mutate(a.root, a.name[0], post=True)
        print("done %d" % gen, flush=True)
    elif a.command == "set-state":
        mutate(a.root, a.name[0], post=False, state=a.state)
        print("done", flush=True)
    elif a.command == "state":
        d = notify_dir(a.root)
        print("%d %d" % (read_record(d, a.name[0]) or (0, 0)), flush=True)
    elif a.command == "pong":
        pong()
    elif a.command == "observe":
        observe(a.root, a.name, a.stop)
    else:
        raise ProtocolError("unknown command %s" % a.command)


if __name__ == "__main__":
    try:
        main()
    except (ProtocolError, OSError) as e:
        sys.stderr.write("participant.py: %s\n" % e)
        sys.exit(2)
