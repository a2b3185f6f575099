"""The benchmark zoo: the fixture models plus torchvision's, generated once into a work
folder by tests/fixtures/generate.py (shared by the bench drivers)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def zoo_models(work=None):
    """(work folder, models folder); generates the models unless they are already there."""
    work = work or tempfile.mkdtemp(prefix="symbolite-bench-")
    models = os.path.join(work, "models")
    if not os.path.exists(os.path.join(models, "squeezenet1_1.ptl")):
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/fixtures/generate.py"), models,
                        "--goldens", os.path.join(work, "goldens"), "--torchvision"],
                       check=True, stdout=subprocess.DEVNULL)
    return work, models
