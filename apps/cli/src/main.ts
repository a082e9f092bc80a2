#!/usr/bin/env node
import { Cli } from './cli';

// `cpx`: results on stdout, progress and errors on stderr, the exit code says how it went (see `cpx --help`).
void new Cli({ stdout: process.stdout, stderr: process.stderr }, process.env).run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
