// ONNX Runtime's side of scripts/models.py, with npm's onnxruntime-node (its CPU provider):
//   node models_ort.js MODEL.onnx X.bin DIMS OUT.bin REPS
// X.bin holds the one float32 input's raw bytes (shape DIMS, "1,3,224,224"); the output is
// written to OUT.bin as raw float32. For 1 and 2 intra-op threads, a session with all graph
// optimizations runs 3 warm-up and REPS timed calls with its profiler on; the time of a call is
// its profiler's model_run event (the Node binding copies tensors in and out around it, which
// that excludes). Prints one JSON line: {"1": median ms, "2": median ms}. scripts/ort_nodes.js
// takes its profiled runs (module.exports).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// A session with all graph optimizations and `threads` intra-op threads runs 3 warm-up and `reps`
// timed calls with its profiler on (its file written at `prefix`, read, then removed): the
// profiler's events and the last call's outputs.
async function profiledRuns(model, feeds, threads, reps, prefix) {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableProfiling: true,
    profileFilePrefix: prefix,
  });
  let out = null;
  for (let i = 0; i < 3 + reps; ++i) out = await session.run(feeds);
  session.endProfiling();
  const dir = path.dirname(prefix);
  const files = fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix) + '_') && f.endsWith('.json'));
  if (files.length !== 1) throw new Error('expected one profile for ' + prefix + ', found ' + files.length);
  const events = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
  fs.unlinkSync(path.join(dir, files[0]));
  await session.release();
  return { events, out };
}

async function timeRuns(model, feeds, threads, reps, prefix) {
  const { events, out } = await profiledRuns(model, feeds, threads, reps, prefix);
  const runs = events.filter((e) => e.name === 'model_run').map((e) => e.dur / 1000);
  if (runs.length < reps) throw new Error('the profile holds ' + runs.length + ' model_run events');
  return { ms: median(runs.slice(runs.length - reps)), out };
}

async function main() {
  const [model, xFile, dims, outFile, repsText] = process.argv.slice(2);
  const shape = dims.split(',').map(Number);
  const buf = fs.readFileSync(xFile);
  const x = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const reps = Number(repsText);
  const probe = await ort.InferenceSession.create(model);
  const feeds = { [probe.inputNames[0]]: new ort.Tensor('float32', x, shape) };
  const outName = probe.outputNames[0];
  await probe.release();
  const result = {};
  for (const threads of [1, 2]) {
    const r = await timeRuns(model, feeds, threads, reps, path.resolve('ort_profile_' + threads));
    result[threads] = r.ms;
    if (threads === 1) {
      const y = r.out[outName].data;
      fs.writeFileSync(outFile, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
    }
  }
  console.log(JSON.stringify(result));
}

module.exports = { median, profiledRuns };

if (require.main === module) {
  main().catch((e) => {
    console.error('models_ort.js: ' + e.message);
    process.exit(1);
  });
}
