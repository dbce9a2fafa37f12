"""Seeded: torch, the loader's generator and the dropout all follow one `--seed`.

`seedlint verify -- python examples/verify/seeded.py` shows that the runs match.
"""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()


def main():
    torch.manual_seed(args.seed)
    data = TensorDataset(torch.randn(32, 1))
    model = nn.Sequential(nn.Linear(1, 8), nn.Dropout(0.2), nn.Linear(8, 1))
    generator = torch.Generator().manual_seed(args.seed)
    loader = DataLoader(data, batch_size=4, shuffle=True, generator=generator)
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
