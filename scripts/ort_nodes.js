// ONNX Runtime's time node by node, to set beside scripts/kernel_profile.py's table of staxc's
// kernels: npm's onnxruntime-node (its CPU provider, as scripts/models_ort.js runs it).
//   NODE_PATH=BUILD_DIR/models/node/node_modules node scripts/ort_nodes.js MODEL.onnx THREADS REPS DIMS
// (scripts/models.sh installs onnxruntime-node there.) A session with all graph optimizations
// and THREADS intra-op threads runs 3 warm-up and REPS timed calls on one float32 input of shape
// DIMS ("1,3,224,224", drawn from a fixed linear congruential sequence in [-0.5, 0.5)) with its
// profiler on. Prints each node's median kernel time in ms over the timed calls, in the order
// ORT ran them (the names of its fused nodes: a convolution with its activation and residual add
// is one), then their sum and the median of the profiler's model_run.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');
const { median, profiledRuns } = require('./models_ort.js');

function usage(why) {
  process.stderr.write(`ort_nodes.js: ${why}\nusage: node ort_nodes.js MODEL.onnx THREADS REPS DIMS\n`);
  process.exit(1);
}

async function main() {
  const [model, threadsText, repsText, dimsText] = process.argv.slice(2);
  if (dimsText === undefined) usage('four arguments expected');
  const threads = Number(threadsText), reps = Number(repsText);
  const shape = dimsText.split(',').map(Number);
  if (!(threads >= 1) || !(reps >= 1) || shape.some((d) => !(d >= 1))) usage('THREADS, REPS and DIMS must be positive');
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  let seed = 1;
  for (let i = 0; i < n; ++i) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    x[i] = seed / 2147483648 - 0.5;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_nodes_'));
  try {
    const probe = await ort.InferenceSession.create(model);
    const feeds = {[probe.inputNames[0]]: new ort.Tensor('float32', x, shape)};
    await probe.release();
    const { events } = await profiledRuns(model, feeds, threads, reps, path.join(dir, 'profile'));
    const times = new Map();
    for (const e of events) {
      if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
      const key = `${e.name.replace(/_kernel_time$/, '')} ${(e.args && e.args.op_name) || ''}`;
      if (!times.has(key)) times.set(key, []);
      times.get(key).push(e.dur / 1000);
    }
    let sum = 0;
    for (const [key, ms] of times) {
      const m = median(ms.slice(-reps));
      sum += m;
      console.log(`${m.toFixed(3).padStart(8)}  ${key}`);
    }
    const runs = events.filter((e) => e.name === 'model_run').map((e) => e.dur / 1000);
    console.log(`sum ${sum.toFixed(3)}  model_run ${median(runs.slice(-reps)).toFixed(3)}`);
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

main().catch((e) => {
  process.stderr.write(`ort_nodes.js: ${e.message}\n`);
  process.exit(1);
});
