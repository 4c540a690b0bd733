// The layered layout of a schedule graph (the Sugiyama scheme, kept small): layers by longest
// path from the inputs, a few sweeps of barycentric ordering within each layer to cross few
// edges, then coordinates: each layer a row, boxes left to right, pulled towards the boxes they
// connect to without overlapping.
#include <algorithm>
#include <vector>

#include "schedule_graph.h"

namespace stax::viz::detail {

namespace {

using Layers = std::vector<std::vector<int>>;  // box indices, left to right

// Each box's neighbours above (preds) and below (succs).
struct Adjacency {
  std::vector<std::vector<int>> preds, succs;
  explicit Adjacency(const ScheduleGraph& g) : preds(g.boxes.size()), succs(g.boxes.size()) {
    for (const Edge& e : g.edges) {
      preds[static_cast<std::size_t>(e.to)].push_back(e.from);
      succs[static_cast<std::size_t>(e.from)].push_back(e.to);
    }
  }
  const std::vector<int>& of(int box, bool above) const {
    return above ? preds[static_cast<std::size_t>(box)] : succs[static_cast<std::size_t>(box)];
  }
};

void assign_layers(ScheduleGraph& g, const Adjacency& adj) {
  // Boxes are in a topological order (sources, kernels in execution order, outputs) and every
  // edge goes forward in it, so one pass gives the longest path from the inputs. Constants take
  // no part in it: they sit just above the first box that reads them.
  auto is_source = [](const Box& b) { return b.kind == BoxKind::Input || b.kind == BoxKind::Constant; };
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    Box& b = g.boxes[i];
    b.layer = is_source(b) ? 0 : 1;
    for (int from : adj.preds[i]) {
      const Box& p = g.boxes[static_cast<std::size_t>(from)];
      if (p.kind != BoxKind::Constant) b.layer = std::max(b.layer, p.layer + 1);
    }
  }
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    Box& b = g.boxes[i];
    if (b.kind != BoxKind::Constant || adj.succs[i].empty()) continue;
    int first = g.boxes[static_cast<std::size_t>(adj.succs[i].front())].layer;
    for (int to : adj.succs[i]) first = std::min(first, g.boxes[static_cast<std::size_t>(to)].layer);
    b.layer = first - 1;
  }
}

Layers make_layers(const ScheduleGraph& g) {
  int count = 0;
  for (const Box& b : g.boxes) count = std::max(count, b.layer + 1);
  Layers layers(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < g.boxes.size(); ++i)
    layers[static_cast<std::size_t>(g.boxes[i].layer)].push_back(static_cast<int>(i));
  return layers;
}

// Reorders `layer` by the mean position of each box's neighbours in the adjacent layer
// (`downward`: its predecessors); boxes without neighbours keep their place.
void sweep_layer(std::vector<int>& layer, const std::vector<double>& pos, const Adjacency& adj, bool downward) {
  std::vector<std::pair<double, int>> keyed;
  for (int box : layer) {
    double sum = 0;
    const std::vector<int>& others = adj.of(box, downward);
    for (int other : others) sum += pos[static_cast<std::size_t>(other)];
    double key = others.empty() ? pos[static_cast<std::size_t>(box)] : sum / static_cast<double>(others.size());
    keyed.emplace_back(key, box);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < layer.size(); ++i) layer[i] = keyed[i].second;
}

// Each box's place within its layer, as a fraction of the layer's width (layers of
// different sizes compare).
std::vector<double> positions(const Layers& layers, std::size_t boxes) {
  std::vector<double> pos(boxes, 0);
  for (const std::vector<int>& layer : layers)
    for (std::size_t i = 0; i < layer.size(); ++i)
      pos[static_cast<std::size_t>(layer[i])] = (static_cast<double>(i) + 0.5) / static_cast<double>(layer.size());
  return pos;
}

void order_layers(Layers& layers, const ScheduleGraph& g, const Adjacency& adj) {
  std::vector<double> pos = positions(layers, g.boxes.size());
  auto sweep = [&](std::size_t l, bool downward) {
    sweep_layer(layers[l], pos, adj, downward);
    for (std::size_t i = 0; i < layers[l].size(); ++i)
      pos[static_cast<std::size_t>(layers[l][i])] = (static_cast<double>(i) + 0.5) / static_cast<double>(layers[l].size());
  };
  for (int round = 0; round < 4; ++round) {
    for (std::size_t l = 1; l < layers.size(); ++l) sweep(l, true);
    for (std::size_t l = layers.size(); l-- > 1;) sweep(l - 1, false);
  }
}

// The mean centre of the boxes `i` connects to in the layer above (`from_above`) or below.
bool neighbour_centre(const ScheduleGraph& g, const Adjacency& adj, int i, bool from_above, double& centre) {
  const std::vector<int>& others = adj.of(i, from_above);
  if (others.empty()) return false;
  double sum = 0;
  for (int other : others) {
    const Box& b = g.boxes[static_cast<std::size_t>(other)];
    sum += b.x + b.w / 2;
  }
  centre = sum / static_cast<double>(others.size());
  return true;
}

// Moves the boxes of `layer` towards their neighbours' centres, keeping their order and gaps:
// each box wants its ideal x; a left-to-right pass then pushes overlapping boxes right.
void place_row(ScheduleGraph& g, const Adjacency& adj, const std::vector<int>& layer, bool from_above) {
  double left = kMargin;
  for (int i : layer) {
    Box& b = g.boxes[static_cast<std::size_t>(i)];
    double centre = 0;
    double want = neighbour_centre(g, adj, i, from_above, centre) ? centre - b.w / 2 : b.x;
    b.x = std::max(want, left);
    left = b.x + b.w + kBoxGap;
  }
}

}  // namespace

void layout(ScheduleGraph& g) {
  const Adjacency adj(g);
  assign_layers(g, adj);
  Layers layers = make_layers(g);
  order_layers(layers, g, adj);
  // Rows: packed left to right first.
  double y = kTop;
  for (const std::vector<int>& layer : layers) {
    double x = kMargin, row = 0;
    for (int i : layer) {
      Box& b = g.boxes[static_cast<std::size_t>(i)];
      b.x = x;
      b.y = y;
      x += b.w + kBoxGap;
      row = std::max(row, b.h);
    }
    y += row + kLayerGap;
  }
  // Then pulled towards their neighbours: down from the inputs, then up from the outputs.
  for (std::size_t l = 1; l < layers.size(); ++l) place_row(g, adj, layers[l], true);
  for (std::size_t l = layers.size(); l-- > 1;) place_row(g, adj, layers[l - 1], false);
  double right = 0, bottom = 0;
  for (const Box& b : g.boxes) {
    right = std::max(right, b.x + b.w);
    bottom = std::max(bottom, b.y + b.h);
  }
  g.width = right + kMargin;
  g.height = bottom + kMargin;
}

}  // namespace stax::viz::detail
