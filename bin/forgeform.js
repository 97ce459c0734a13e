#!/usr/bin/env node
import { main } from "../lib/cli/index.js";

process.exitCode = await main(process.argv);
