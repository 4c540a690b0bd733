/* Runs the two models of this sample and checks them against plain C loops: a softmax over the
   rows of x[4, 8], and an MLP (linear, erf GELU, linear) on x[8, 4] with the weights of
   models/mlp.weights. Prints each model's largest error and "cmake-app: all ok" when both are
   within 1e-5; exits 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlp.h"
#include "softmax.h"

static double check_softmax(void) {
  float x[4][8], y[4][8];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) x[i][j] = (float)sin(1.0 + i * 8 + j) * 3.0f;
  const void* inputs[] = {x};
  void* outputs[] = {y};
  if (softmax_run(inputs, outputs, NULL) != STAX_OK) return INFINITY;
  double worst = 0;
  for (int i = 0; i < 4; ++i) {
    double max = x[i][0], sum = 0;
    for (int j = 1; j < 8; ++j) max = x[i][j] > max ? x[i][j] : max;
    for (int j = 0; j < 8; ++j) sum += exp(x[i][j] - max);
    for (int j = 0; j < 8; ++j) worst = fmax(worst, fabs(y[i][j] - exp(x[i][j] - max) / sum));
  }
  printf("softmax: y[0] = %.4f %.4f %.4f ..., largest error %.2g\n", y[0][0], y[0][1], y[0][2], worst);
  return worst;
}

/* w1[8][4], b1[8], w2[4][8], b2[4], in this order (models/mlp.json gives the offsets). */
struct mlp_weights {
  float w1[8][4], b1[8], w2[4][8], b2[4];
};

static double check_mlp(void) {
  struct mlp_weights w;
  FILE* f = fopen(MLP_WEIGHTS, "rb");
  if (f == NULL || fread(&w, sizeof w, 1, f) != 1) {
    fprintf(stderr, "cannot read %s\n", MLP_WEIGHTS);
    exit(1);
  }
  fclose(f);
  float x[8][4], y[8][4];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) x[i][j] = (float)cos(0.5 + i * 4 + j);
  const void* inputs[] = {x};
  void* outputs[] = {y};
  static _Alignas(64) unsigned char workspace[mlp_WORKSPACE_SIZE + 1];
  if (mlp_run(inputs, outputs, workspace) != STAX_OK) return INFINITY;
  double worst = 0;
  for (int i = 0; i < 8; ++i) {
    double a[8];
    for (int h = 0; h < 8; ++h) {
      double s = w.b1[h];
      for (int k = 0; k < 4; ++k) s += (double)x[i][k] * w.w1[h][k];
      a[h] = 0.5 * s * (1.0 + erf(s / sqrt(2.0)));
    }
    for (int o = 0; o < 4; ++o) {
      double s = w.b2[o];
      for (int h = 0; h < 8; ++h) s += a[h] * w.w2[o][h];
      worst = fmax(worst, fabs(y[i][o] - s));
    }
  }
  printf("mlp: y[0] = %.4f %.4f %.4f %.4f, largest error %.2g (workspace %zu bytes)\n", y[0][0], y[0][1], y[0][2],
         y[0][3], worst, (size_t)mlp_WORKSPACE_SIZE);
  return worst;
}

int main(void) {
  double e1 = check_softmax();
  double e2 = check_mlp();
  if (!(e1 <= 1e-5 && e2 <= 1e-5)) {
    printf("cmake-app: MISMATCH\n");
    return 1;
  }
  printf("cmake-app: all ok\n");
  return 0;
}
