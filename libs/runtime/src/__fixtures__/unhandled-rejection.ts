// Child process of process-error-handlers.spec.ts: installs the handlers (unless told not to), rejects a
// promise nobody awaits, and reports whether it is still alive afterwards.
import { installProcessErrorHandlers } from '../process-error-handlers';

if (process.argv[2] !== 'without-handlers') {
  installProcessErrorHandlers('fixture');
}
if (process.argv[3] === 'throw') {
  setTimeout(() => {
    throw new Error('thrown from a timer');
  }, 10);
} else {
  void Promise.reject(new Error('nobody awaits this'));
}
setTimeout(() => {
  process.stdout.write('still alive\n');
}, 200);
