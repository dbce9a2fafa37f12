"""Capturing a training step in a CUDA graph, with a seeding call in the wrong place."""

import torch

model = torch.nn.Linear(8, 8).cuda()
static_input = torch.randn(4, 8, device="cuda")
graph = torch.cuda.CUDAGraph()

stream = torch.cuda.Stream()
with torch.cuda.stream(stream):
    model(static_input)  # warm-up before capture
torch.cuda.current_stream().wait_stream(stream)

with torch.cuda.graph(graph):
    torch.manual_seed(0)
    static_output = torch.nn.functional.dropout(model(static_input), p=0.5)

for _ in range(3):
    graph.replay()
    print(static_output.sum().item())
