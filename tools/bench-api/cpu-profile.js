// Preloaded with NODE_OPTIONS=--require by `tools/bench-api --profile <dir>` (NODE_OPTIONS refuses
// --cpu-prof): profiles the whole process with the inspector and writes <dir>/<pid>.cpuprofile on SIGTERM.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
  process.once('SIGTERM', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) {
        const name = path.basename(process.argv[process.argv.length - 1], '.ts') === 'main' ? path.basename(path.dirname(path.dirname(process.argv[process.argv.length - 1]))) : 'process';
        writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
      }
    });
  });
}
