#!/usr/bin/env node
// Runs on the project's Node 24 (npx puts node_modules/.bin first on PATH), which strips types.
import { main } from '../src/cli/flashdeck.ts';

process.exitCode = await main(process.argv.slice(2));
