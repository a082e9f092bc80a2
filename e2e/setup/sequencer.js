// Jest's own order (failed first, then the slowest first), except that the fault-injection suite runs last: it
// kills and restarts the stack's processes, PostgreSQL and JetStream nodes, and what a fault leaves behind (a
// consumer's state after a leader election, say) must not decide whether the functional suites pass. Its own
// checks prove recovery; the functional suites prove the product on a stack that nobody has broken.
const Sequencer = require('@jest/test-sequencer').default;

const LAST = /[\\/]chaos\.e2e-spec\.ts$/;

class E2eSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((test) => !LAST.test(test.path)), ...sorted.filter((test) => LAST.test(test.path))];
  }
}

module.exports = E2eSequencer;
