import { formatPath, type Problem } from './parse.js';

/** One line per problem: `routes.svc.intelligent-pro[1] at line 12, column 7: unknown backend "opneai"`. */
const formatProblem = (problem: Problem): string => `${problem.path.length ? `${formatPath(problem.path)} at ` : ''}line ${problem.line}, column ${problem.column}: ${problem.message}`;

export const formatProblems = (problems: readonly Problem[], indent = '  '): string => problems.map((problem) => `${indent}${formatProblem(problem)}`).join('\n');
