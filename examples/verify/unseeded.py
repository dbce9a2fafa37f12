"""Unseeded: seeds `random` and `np.random`, never torch, and shuffles without a generator.

`seedlint verify --steps 4 -- python examples/verify/unseeded.py` shows that two runs differ
from the first draw; `seedlint check --fix` on this file, then the same `verify`, shows they
match.
"""

import argparse
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()


def main():
    random.seed(args.seed)
    np.random.seed(args.seed)
    data = TensorDataset(torch.linspace(-1, 1, 32).unsqueeze(1))
    model = nn.Linear(1, 1)
    loader = DataLoader(data, batch_size=4, shuffle=True)
    for epoch in range(args.epochs):
        for (x,) in loader:
            loss = nn.functional.mse_loss(model(x), 2 * x)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():  # plain SGD
                for parameter in model.parameters():
                    parameter -= 0.1 * parameter.grad
        print(f"epoch {epoch}: loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
