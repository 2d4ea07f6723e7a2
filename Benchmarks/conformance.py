#!/usr/bin/env python3
"""Valid files refused? catctl against vips and the format's own decoder on a conformance suite.

The check of issue 31 ("Valid files refused: the conformance suites"). For every HEIC, HEIF,
AVIF and JPEG XL file under the folders given (recursively: .heic .heif .hif .avif .avifs
.jxl; a symlink to a file already seen is skipped, as the libjxl suite's *_5 cases are), it
decodes each file three ways:

  catctl   `catctl edit --filter brightness:1 IN OUT.png`: brightness:1 is the identity
           (pixel-exact on 8-bit RGB and RGBA; high bit depths are rounded to 8 bits, as
           catctl's PNG output always is)
  vips     `vips copy IN OUT.v` (vips 8.14 reads HEIC/AVIF through libheif, JPEG XL through
           libjxl; its own .v format keeps every band and sample format, where PNG would turn
           JPEG XL's float samples to 0/1 and refuse 6 bands)
  tool     the format's own decoder to PNG: heif-dec (or heif-convert, libheif <= 1.16; where
           it writes several top-level images, the one heif-info calls primary), avifdec, djxl

and reports, per file: whether each decoded (exit code, and catctl's message when it
refuses), the decoded size, and the pixel agreement of catctl with vips, with the tool and
with the suite's reference rendering where there is one, as the max and mean absolute
difference over RGBA8 (16-bit samples rounded to 8 bits, floats taken as 0..1, no alpha =
255, grey replicated; only when the sizes match, else both sizes are shown). Where they disagree
and the two outputs carry different ICC profiles (none counts as sRGB), both are also
rendered to sRGB through their own profile (`vips icc_transform --embedded`), and that is
kept, marked "icc", when it agrees better: djxl, for one, writes linear or grey-gamma
samples with a profile where catctl converts to sRGB.
Only the first frame of an animation is compared. Every run has a timeout (30 s) and an
address-space cap (`prlimit --as`, 4 GiB).

References: libjxl/conformance's ref.png / ref.apng / ref.gif beside input.jxl; Netflix's
STEM.png beside STEM.avif (avifdec decodes); Xiph's layer PNGs (the last layer, or the one
a1op selects); Link-U's kimono.png / kimono.crop.png for the irot/imir/clap files (the
encoder's input before the transform, so lossy: judged by size and mean only).

Per suite it prints a Markdown table and a summary: files; decoded by catctl / vips / the
tool; the files catctl refuses while vips or the tool decodes them, with catctl's message;
and the pixel mismatches (max difference above --tolerance, 2).

  python3 Benchmarks/conformance.py [--catctl PATH] [--json OUT] [--keep DIR] FOLDER...

for example, with the suites fetched into /tmp/conformance/{avif,heif,jxl}:

  python3 Benchmarks/conformance.py --catctl .build/release/catctl \\
      /tmp/conformance/avif /tmp/conformance/heif /tmp/conformance/jxl

(AOMediaCodec/av1-avif testFiles/, nokiatech/heif_conformance conformance_files/,
libjxl/conformance testcases/. The HEIF suite states no licence: keep it out of the repo.)

A benchmark, not a test: it uses numpy (Debian's python3-numpy; it re-runs itself under
/usr/bin/python3 when the current python lacks numpy) and reads every output through
`vips copy PNG OUT.v`, so that 16-bit PNGs are read exactly. Needs (apt) libvips-tools,
libheif-examples, libavif-bin, libjxl-tools, python3-numpy and util-linux's prlimit.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("conformance.py needs numpy: apt-get install python3-numpy")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENSIONS = {".heic": "heif", ".heif": "heif", ".hif": "heif", ".avif": "avif", ".avifs": "avif", ".jxl": "jxl"}
IDENTITY = ["--filter", "brightness:1"]
SOURCE_MEAN = 4.0   # against a lossy encoder's input only the mean is judged


# ---------------------------------------------------------------------------------------
# running a decoder

def run(cmd, timeout, mem_bytes):
    """Runs cmd under prlimit --as and a timeout; returns (status, stdout, stderr, seconds).
    status is an int exit code, 'timeout', or 'signal NAME'."""
    full = ["prlimit", "--as=%d" % mem_bytes, "--"] + cmd
    start = time.monotonic()
    # stdin is an empty pipe, not /dev/null: nothing here depends on that device
    proc = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(input=b"", timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return "timeout", out, err, time.monotonic() - start
    seconds = time.monotonic() - start
    rc = proc.returncode
    if rc < 0:
        try:
            rc = "signal " + signal.Signals(-rc).name
        except ValueError:
            rc = "signal %d" % -rc
    return rc, out, err, seconds


def clean(raw, limit=300):
    """A library's output made safe to print: control bytes escaped, lines joined."""
    text = raw.decode("utf-8", "replace")
    lines = []
    for line in text.splitlines():
        line = "".join(c if c.isprintable() else "\\x%02x" % ord(c) if ord(c) < 256 else "?" for c in line).strip()
        if line:
            lines.append(line)
    text = " / ".join(lines)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def catctl_decode(catctl, path, out, args):
    rc, so, se, t = run([catctl, "edit"] + IDENTITY + [path, out], args.timeout, args.mem)
    ok = rc == 0 and os.path.exists(out)
    lines = [l for l in clean(se, 2000).split(" / ") if l]
    notes = [l for l in lines if l.startswith("note:")]
    msg = " / ".join(l for l in lines if not l.startswith("note:"))
    msg = msg.replace("catctl: error: ", "").replace("cannot decode %s: " % path, "")
    return {"rc": rc, "ok": ok, "msg": msg[:300], "notes": notes, "seconds": round(t, 3), "png": out if ok else None}


def vips_decode(path, out, args):
    rc, so, se, t = run(["vips", "copy", path, out], args.timeout, args.mem)
    ok = rc == 0 and os.path.exists(out)
    return {"rc": rc, "ok": ok, "msg": clean(se + so), "seconds": round(t, 3), "png": out if ok else None}


def heif_primary_index(path, args):
    """1-based position of the primary image among heif-info's top-level images."""
    rc, so, se, t = run(["heif-info", path], args.timeout, args.mem)
    index = 0
    for line in so.decode("utf-8", "replace").splitlines():
        if line.startswith("image:"):
            index += 1
            if "primary" in line:
                return index
    return 1


def tool_decode(kind, path, out, args):
    if kind == "avif":
        name, cmd = "avifdec", ["avifdec", path, out]
    elif kind == "jxl":
        name, cmd = "djxl", ["djxl", path, out]
    else:
        name = "heif-dec" if shutil.which("heif-dec") else "heif-convert"
        cmd = [name, path, out]
    if not shutil.which(cmd[0]):
        return {"tool": name, "rc": "missing", "ok": False, "msg": name + " not installed", "png": None}
    rc, so, se, t = run(cmd, args.timeout, args.mem)
    png = out if os.path.exists(out) else None
    if png is None and kind == "heif":
        # libheif's tools write OUT-1.png, OUT-2.png ... when there are several top-level images
        stem = out[:-4]
        numbered = [f for f in os.listdir(os.path.dirname(out))
                    if f.startswith(os.path.basename(stem) + "-") and f.endswith(".png")
                    and f[len(os.path.basename(stem)) + 1:-4].isdigit()]
        if numbered:
            png = "%s-%d.png" % (stem, heif_primary_index(path, args))
            if not os.path.exists(png):
                png = os.path.join(os.path.dirname(out), sorted(numbered)[0])
    ok = rc == 0 and png is not None
    return {"tool": name, "rc": rc, "ok": ok, "msg": clean(se + so), "seconds": round(t, 3), "png": png if ok else None}


# ---------------------------------------------------------------------------------------
# reading the outputs (through vips, so that 16-bit and float samples are exact)

FORMATS = {0: np.uint8, 1: np.int8, 2: np.uint16, 3: np.int16, 4: np.uint32, 5: np.int32, 6: np.float32, 8: np.float64}
ICC_FIELD = b'name="icc-profile-data">'


def read_v(v):
    """A vips .v file: (HxWxB array, ICC profile bytes or None)."""
    with open(v, "rb") as f:
        data = f.read()
    order = "<" if data[:4] == b"\xb6\xa6\xf2\x08" else ">"
    width, height, bands, _bbits, fmt = struct.unpack(order + "5i", data[4:24])
    dtype = np.dtype(FORMATS[fmt]).newbyteorder(order)
    count = width * height * bands
    a = np.frombuffer(data, dtype=dtype, count=count, offset=64).reshape(height, width, bands)
    icc = None
    xml = data[64 + count * dtype.itemsize:]
    at = xml.find(ICC_FIELD)
    if at >= 0:
        icc = base64.b64decode(xml[at + len(ICC_FIELD):xml.index(b"<", at + len(ICC_FIELD))])
    return a, icc


def to_rgba8(a):
    """HxWxB samples of any vips format as HxWx4 uint8: 16 bits rounded to 8, floats taken
    as 0..1, grey replicated, no alpha = 255, bands past the fourth dropped."""
    if a.dtype.kind == "u" and a.dtype.itemsize == 2:
        a = ((a.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8)
    elif a.dtype.kind == "f":
        a = np.clip(np.rint(a.astype(np.float64) * 255.0), 0, 255).astype(np.uint8)
    else:
        a = np.clip(a, 0, 255).astype(np.uint8)
    bands = a.shape[2]
    if bands == 1:
        a = np.concatenate([a, a, a, np.full_like(a, 255)], axis=2)
    elif bands == 2:
        a = np.concatenate([a[..., :1]] * 3 + [a[..., 1:2]], axis=2)
    elif bands == 3:
        a = np.concatenate([a, np.full_like(a[..., :1], 255)], axis=2)
    elif bands > 4:
        a = a[..., :4]   # vips gives JPEG XL's extra channels after RGB; alpha comes first
    return np.ascontiguousarray(a)


class Image:
    """One decoder's output: its pixels as RGBA8, its ICC profile, and (on demand) its pixels
    rendered to sRGB through that profile with `vips icc_transform`."""

    def __init__(self, path, scratch):
        self.path, self.scratch, self._srgb = path, scratch, None
        v = os.path.join(scratch, "load.v")
        if path.endswith(".v"):
            v = path
        else:
            if os.path.exists(v):
                os.remove(v)
            p = subprocess.run(["vips", "copy", path, v], input=b"", capture_output=True)
            if p.returncode != 0 or not os.path.exists(v):
                raise ValueError("vips cannot read %s: %s" % (path, clean(p.stderr)))
        raw, self.icc = read_v(v)
        self.rgba = to_rgba8(raw)

    @property
    def size(self):
        return "%dx%d" % (self.rgba.shape[1], self.rgba.shape[0])

    def srgb(self):
        """The pixels through the embedded profile to sRGB (16 bits, then rounded), or None."""
        if self.icc is None:
            return self.rgba
        if self._srgb is None:
            v = os.path.join(self.scratch, "srgb.v")
            if os.path.exists(v):
                os.remove(v)
            p = subprocess.run(["vips", "icc_transform", self.path, v, "srgb", "--embedded", "--depth", "16"],
                               input=b"", capture_output=True)
            if p.returncode != 0 or not os.path.exists(v):
                self._srgb = False
            else:
                colour = read_v(v)[0]
                if colour.shape[:2] != self.rgba.shape[:2] or colour.shape[2] < 3:
                    self._srgb = False
                else:
                    # the colour bands through the profile, the alpha as decoded
                    self._srgb = to_rgba8(colour[..., :3])
                    self._srgb[..., 3] = self.rgba[..., 3]
        return None if self._srgb is False else self._srgb


def difference(x, y):
    d = np.abs(x.astype(np.int16) - y.astype(np.int16))
    return {"max": int(d.max()), "mean": round(float(d.mean()), 3)}


def compare(a, b, tol):
    """Max and mean abs difference over RGBA8, of the samples as decoded. Where that is over
    tol and the two outputs carry different ICC profiles (none counts as sRGB), both are also
    rendered to sRGB through their own profile, and that result is kept when it agrees
    better ('icc': True): djxl, for one, writes linear or grey-gamma samples with a profile
    where catctl converts to sRGB."""
    if a is None or b is None:
        return None
    if a.rgba.shape[:2] != b.rgba.shape[:2]:
        return {"sizes": "%s vs %s" % (a.size, b.size)}
    r = difference(a.rgba, b.rgba)
    if r["max"] > tol and a.icc != b.icc:
        xs, ys = a.srgb(), b.srgb()
        if xs is not None and ys is not None:
            r2 = difference(xs, ys)
            if (r2["max"], r2["mean"]) < (r["max"], r["mean"]):
                r = dict(r2, icc=True)
    return r


# Link-U's kimono.*.png are the encoder's inputs, drawn before the transform that irot, imir
# and clap undo: what a decoder must show is the original (or its crop).
SOURCES = {
    "kimono.rotate90.avif": "kimono.png", "kimono.rotate270.avif": "kimono.png",
    "kimono.mirror-horizontal.avif": "kimono.png", "kimono.mirror-vertical.avif": "kimono.png",
    "kimono.mirror-vertical.rotate270.avif": "kimono.png", "kimono.avif": "kimono.png",
    "kimono.crop.avif": "kimono.crop.png", "kimono.mirror-vertical.rotate270.crop.avif": "kimono.crop.png",
}


# Xiph's layered files: the layer a decoder must show (the last, or the one a1op selects).
LAYERS = {
    "tiger_3layer_1res.avif": "tiger_3layer_1res_layer2.png", "tiger_3layer_3res.avif": "tiger_3layer_3res_layer2.png",
    "fruits_2layer_thumbsize.avif": "fruits_2layer_thumbsize_layer1.png",
    "quebec_3layer_op2.avif": "quebec_3layer_op2_layer0.png",
}


def reference_for(path):
    """(reference, kind): kind 'decode' for a reference decode (libjxl/conformance's ref.png,
    ref.apng, ref.gif; Netflix's STEM.png, made by avifdec), 'source' for the lossy encoder's
    input (Link-U's kimono), compared by size and mean only."""
    d, name = os.path.split(path)
    stem = os.path.splitext(name)[0]
    if name in SOURCES and os.path.basename(d) == "Link-U":
        p = os.path.join(d, SOURCES[name])
        return (p, "source") if os.path.isfile(p) else (None, None)
    if name in LAYERS and os.path.basename(d) == "Xiph":
        p = os.path.join(d, LAYERS[name])
        return (p, "decode") if os.path.isfile(p) else (None, None)
    names = ["ref.png", "ref.apng", "ref.gif"] if stem == "input" else [stem + ".png"]
    for n in names:
        p = os.path.join(d, n)
        if os.path.isfile(p):
            return p, "decode"
    return None, None


# ---------------------------------------------------------------------------------------

def files_in(folder):
    """The files to check, sorted; a symlink to a file already listed is an alias, skipped."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for f in filenames:
            p = os.path.join(dirpath, f)
            if os.path.splitext(f)[1].lower() in EXTENSIONS and os.path.isfile(p):
                found.append(p)
    seen, files, aliases = set(), [], []
    for p in sorted(found, key=lambda p: (os.path.islink(p), p)):   # real files first
        real = os.path.realpath(p)
        if real in seen:
            aliases.append(os.path.relpath(p, folder))
        else:
            seen.add(real)
            files.append(p)
    return sorted(files), sorted(aliases)


def check_file(path, folder, args, scratch, keep):
    kind = EXTENSIONS[os.path.splitext(path)[1].lower()]
    rel = os.path.relpath(path, folder)
    tag = rel.replace(os.sep, "__")
    outdir = keep or scratch
    r = {"file": rel, "bytes": os.path.getsize(path)}
    r["catctl"] = catctl_decode(args.catctl, path, os.path.join(outdir, tag + ".catctl.png"), args)
    r["vips"] = vips_decode(path, os.path.join(outdir, tag + ".vips.v"), args)
    tooldir = os.path.join(outdir, tag + ".tool")
    os.makedirs(tooldir, exist_ok=True)
    r["tool"] = tool_decode(kind, path, os.path.join(tooldir, "out.png"), args)
    ref, r["ref_kind"] = reference_for(path)
    r["ref"] = os.path.relpath(ref, folder) if ref else None

    imgs = {}
    for k in ("catctl", "vips", "tool"):
        out = r[k].get("png")
        imgs[k] = None
        if out:
            try:
                imgs[k] = Image(out, scratch)
            except ValueError as e:
                r[k]["ok"], r[k]["msg"] = False, str(e)[:300]
        r[k]["size"] = imgs[k].size if imgs[k] is not None else None
        r[k]["icc_bytes"] = len(imgs[k].icc) if imgs[k] is not None and imgs[k].icc else 0
    imgs["ref"] = Image(ref, scratch) if ref else None
    r["vs_vips"] = compare(imgs["catctl"], imgs["vips"], args.tolerance)
    r["vs_tool"] = compare(imgs["catctl"], imgs["tool"], args.tolerance)
    r["vs_ref"] = compare(imgs["catctl"], imgs["ref"], args.tolerance)
    r["tool_vs_ref"] = compare(imgs["tool"], imgs["ref"], args.tolerance)
    if not keep:
        for k in ("catctl", "vips"):
            if r[k].get("png") and os.path.exists(r[k]["png"]):
                os.remove(r[k]["png"])
        shutil.rmtree(tooldir, ignore_errors=True)
    for k in ("catctl", "vips", "tool"):
        r[k].pop("png", None)
    return r


def status(d):
    if d["ok"]:
        return "ok"
    rc = d["rc"]
    return "missing" if rc == "missing" else "**%s**" % rc if isinstance(rc, str) else "exit %s" % rc


def cmp_cell(c, tol, kind="decode"):
    if c is None:
        return "–"
    if "sizes" in c:
        return "**sizes " + c["sizes"] + "**"
    s = "%d / %.2f" % (c["max"], c["mean"])
    if c.get("icc"):
        s += " icc"
    if kind == "source":
        s += " (source)"
    return "**%s**" % s if mismatch(c, tol, kind) else s


def mismatch(c, tol, kind="decode"):
    if c is None:
        return False
    if "sizes" in c:
        return True
    return c["mean"] > SOURCE_MEAN if kind == "source" else c["max"] > tol


def report(name, folder, results, aliases, tool, tol, out):
    w = out.write
    w("\n## %s (%s)\n\n" % (name, folder))
    w("| file | bytes | catctl | vips | %s | size | catctl vs vips (max / mean) | vs %s | vs ref | %s vs ref |\n" % (tool, tool, tool))
    w("| --- | ---: | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    for r in results:
        size = r["catctl"]["size"] or r["vips"]["size"] or r["tool"]["size"] or "–"
        w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["file"], r["bytes"], status(r["catctl"]), status(r["vips"]), status(r["tool"]), size,
            cmp_cell(r["vs_vips"], tol), cmp_cell(r["vs_tool"], tol), cmp_cell(r["vs_ref"], tol, r["ref_kind"]),
            cmp_cell(r["tool_vs_ref"], tol, r["ref_kind"])))
    n = len(results)
    dc = sum(r["catctl"]["ok"] for r in results)
    dv = sum(r["vips"]["ok"] for r in results)
    dt = sum(r["tool"]["ok"] for r in results)
    refused = [r for r in results if not r["catctl"]["ok"] and (r["vips"]["ok"] or r["tool"]["ok"])]
    alone = [r for r in results if r["catctl"]["ok"] and not r["vips"]["ok"] and not r["tool"]["ok"]]
    mm_v = [r for r in results if mismatch(r["vs_vips"], tol)]
    mm_t = [r for r in results if mismatch(r["vs_tool"], tol)]
    mm_r = [r for r in results if mismatch(r["vs_ref"], tol, r["ref_kind"])]
    w("\n**%s**: %d files%s; decoded by catctl %d, vips %d, %s %d; catctl refused while a peer decoded: %d; "
      "decoded by catctl alone: %d; pixel mismatches (max > %d or sizes differ): vs vips %d, vs %s %d, vs ref %d.\n"
      % (name, n, " (%d aliases skipped)" % len(aliases) if aliases else "", dc, dv, tool, dt, len(refused),
         len(alone), tol, len(mm_v), tool, len(mm_t), len(mm_r)))
    if refused:
        w("\ncatctl refused, a peer decoded:\n")
        for r in refused:
            peers = ", ".join(k if k == "vips" else r["tool"]["tool"] for k in ("vips", "tool") if r[k]["ok"])
            w("- %s (%s decoded): catctl %s: %s\n" % (r["file"], peers, r["catctl"]["rc"], r["catctl"]["msg"] or "(no message)"))
    if alone:
        w("\ndecoded by catctl alone: %s\n" % ", ".join(r["file"] for r in alone))
    for label, rows, key in (("vips", mm_v, "vs_vips"), (tool, mm_t, "vs_tool"), ("ref", mm_r, "vs_ref")):
        if rows:
            w("\nmismatches vs %s: %s\n" % (label, "; ".join(
                "%s (%s)" % (r["file"], cmp_cell(r[key], tol, r["ref_kind"] if key == "vs_ref" else "decode").strip("*"))
                for r in rows)))
    return {"suite": name, "folder": folder, "files": n, "aliases": aliases, "catctl": dc, "vips": dv, "tool": tool,
            "tool_decoded": dt, "refused": [r["file"] for r in refused], "alone": [r["file"] for r in alone],
            "mismatch_vips": [r["file"] for r in mm_v], "mismatch_tool": [r["file"] for r in mm_t],
            "mismatch_ref": [r["file"] for r in mm_r]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--catctl", default=os.environ.get("CATCTL", os.path.join(ROOT, ".build", "release", "catctl")))
    ap.add_argument("--timeout", type=float, default=30, help="seconds per decode (default 30)")
    ap.add_argument("--mem-gib", type=float, default=4, help="prlimit --as per decode, GiB (default 4)")
    ap.add_argument("--tolerance", type=int, default=2, help="max abs difference still counted a match (default 2)")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--keep", help="keep the decoded PNGs in this folder")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args()
    args.mem = int(args.mem_gib * (1 << 30))
    if not os.access(args.catctl, os.X_OK):
        sys.exit("no catctl at %s (give --catctl)" % args.catctl)
    for t in ("vips", "prlimit"):
        if not shutil.which(t):
            sys.exit("%s is needed (apt-get install libvips-tools util-linux)" % t)

    summaries, everything = [], []
    for folder in args.folders:
        folder = os.path.abspath(folder)
        files, aliases = files_in(folder)
        kinds = sorted({EXTENSIONS[os.path.splitext(f)[1].lower()] for f in files})
        tool = "/".join({"avif": "avifdec", "jxl": "djxl",
                         "heif": "heif-dec" if shutil.which("heif-dec") else "heif-convert"}[k] for k in kinds) or "tool"
        results = []
        scratch = tempfile.mkdtemp(prefix="catctl-conformance-")
        keep = None
        if args.keep:
            keep = os.path.join(os.path.abspath(args.keep), os.path.basename(folder))
            os.makedirs(keep, exist_ok=True)
        try:
            for i, f in enumerate(files):
                if not args.quiet:
                    print("[%d/%d] %s" % (i + 1, len(files), os.path.relpath(f, folder)), file=sys.stderr, flush=True)
                results.append(check_file(f, folder, args, scratch, keep))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        summaries.append(report(os.path.basename(folder), folder, results, aliases, tool, args.tolerance, sys.stdout))
        everything.append({"folder": folder, "results": results})
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"catctl": args.catctl, "summaries": summaries, "suites": everything}, f, indent=1)


if __name__ == "__main__":
    main()
