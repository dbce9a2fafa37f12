"""A loader with `num_workers=2` in a program that seeds `random` and `np.random` but not torch.

Each worker seeds its own `random`, `torch` and `np.random` from the loader's base seed, and that
seed is drawn from torch's global generator, so the augmentation (legacy `np.random`, in the
workers) changes from run to run. `seedlint verify -- python examples/verify/workers.py` shows it.
"""

import argparse
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()


class Jittered(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index + np.random.uniform(-0.5, 0.5))


def main():
    random.seed(args.seed)
    np.random.seed(args.seed)
    loader = DataLoader(Jittered(), batch_size=2, num_workers=2)
    for batch in loader:
        print(batch.tolist())


if __name__ == "__main__":
    main()
