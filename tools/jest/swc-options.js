const fs = require('node:fs');
const path = require('node:path');

const swcrc = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../.swcrc'), 'utf8'));
module.exports = { ...swcrc, swcrc: false };
