import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configText, makeHome, readConfig, removeHome, runCli } from './run-cli.js';

let home: string;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => removeHome(home));

describe('backends add --type bedrock', () => {
  it('stores the region, the profile and the runtime URL the region gives', async () => {
    const added = await runCli(['backends', 'add', 'aws', '--type', 'bedrock', '--region', 'eu-central-1', '--aws-profile', 'work'], { home });
    expect(added.code, added.stderr).toBe(0);
    expect(readConfig(home)!.backends.aws).toEqual({ type: 'bedrock', baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com', region: 'eu-central-1', awsProfile: 'work' });
    const listed = await runCli(['backends', 'list', '--json'], { home });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'aws', type: 'bedrock', api_key: 'aws-sigv4', region: 'eu-central-1', aws_profile: 'work' }]);
  });

  it.each([
    [['--type', 'bedrock'], '--region'],
    [['--type', 'bedrock', '--region', 'Europe'], "--region must be an AWS region such as us-east-1, got 'Europe'"],
    [['--type', 'anthropic', '--base-url', 'https://api.anthropic.com', '--region', 'us-east-1'], '--region is for vertex and bedrock backends only'],
    [['--type', 'anthropic', '--base-url', 'https://api.anthropic.com', '--aws-profile', 'work'], '--aws-profile is for bedrock backends only'],
    [['--type', 'openai-chat'], "required option '--base-url <url>' not specified"],
  ])('refuses %j, changing nothing', async (args, words) => {
    const before = configText(home);
    const refused = await runCli(['backends', 'add', 'x', ...args], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(words);
    expect(configText(home)).toBe(before);
  });
});
