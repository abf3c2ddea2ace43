#!/usr/bin/env node
// Runs the compiled CLI (npm ci builds it), so a call starts without a TypeScript loader.
import '../dist/cli/main.js';
