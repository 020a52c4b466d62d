#!/usr/bin/env node
// The operator CLI of helix-agents-dbos (README "Operator CLI"); the code is in src/cli/, built to dist/cli/.
import '../dist/cli/main.js';
