"""A small training script with the usual reproducibility gaps (seedlint's README demo).

Run `seedlint check examples/` to see them, `seedlint check --diff examples/` to preview the
fixes, and `seedlint check --fix examples/` to apply them.
"""

import argparse
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()


class NoisyRegression(Dataset):
    """y = 2x + noise; the noise comes from an RNG object the dataset owns."""

    def __init__(self, size):
        self.x = torch.linspace(-1, 1, size).unsqueeze(1)
        self.rng = np.random.default_rng()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        noise = float(self.rng.normal(scale=0.1))
        return self.x[index], 2 * self.x[index] + noise


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)


def main():
    set_seed(args.seed)
    model = nn.Linear(1, 1)
    loader = DataLoader(NoisyRegression(64), batch_size=8, shuffle=True, num_workers=args.workers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
