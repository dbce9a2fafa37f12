"""A dataset's RNG object copied into every worker: torch and the loader are seeded, but the
noise comes from `np.random.default_rng()` made in `__init__`, without a seed.

`seedlint verify --steps 4 -- python examples/verify/dataset_rng.py` names that generator.
"""

import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()


class Noisy(Dataset):
    def __init__(self, size):
        self.x = torch.linspace(-1, 1, size)
        self.rng = np.random.default_rng()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index] + float(self.rng.normal(scale=0.1))


def main():
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    loader = DataLoader(Noisy(16), batch_size=4, shuffle=True, num_workers=2, generator=generator)
    for epoch in range(2):
        for batch in loader:
            print(f"epoch {epoch}: {batch.sum().item():.6f}")


if __name__ == "__main__":
    main()
