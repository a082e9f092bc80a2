import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The package's README is what a user of the SDK reads first: it must not deny what the client does. */
describe('SDK README', () => {
  const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  // Public methods of the client (private ones are declared `private async`).
  const methods = [...readFileSync(path.join(__dirname, 'client.ts'), 'utf8').matchAll(/^ {2}async (\w+)\(/gm)].map((match) => match[1]);

  it('names every public method of ContentProtectionClient', () => {
    expect(methods.length).toBeGreaterThan(10);
    expect(methods.filter((method) => !readme.includes(`${method}(`))).toEqual([]);
  });
});
