import { modelInfo, packagePriceList, type Capabilities, type CatalogPrice, type ModelInfo, type Rate } from '../../catalog/index.js';
import { priceProviderIds, priceProviderOf } from '../../backends/registry.js';
import type { Settings } from '../../config/settings.js';
import { isBackendType, type BackendType } from '../../core/backend-types.js';
import { formatCount, formatUsdRate } from '../../core/format-numbers.js';
import { SKUS } from '../../core/model-names.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import { findConfiguredRoute } from '../../routing/resolve-route.js';
import { contextWindowOf } from '../../routing/context-windows.js';
import { openConfig } from '../config-in-force.js';
import { didYouMean } from '../did-you-mean.js';
import { chalk, note, printJson, printLine } from '../output.js';

/** One upstream model as `models info` shows it: the catalog's values with their sources. */
interface TargetInfo {
  target: string;
  backend?: string;
  type?: BackendType;
  info: ModelInfo;
}

/**
 * `models info MODEL`: what the catalog knows of a model and where each value came from. MODEL is
 * a route (each of its targets is shown, with the window clients are told), a `BACKEND:MODEL`
 * target, or an upstream model name, looked up by name alone.
 */
export async function runModelsInfo(model: string, options: { json?: boolean }): Promise<void> {
  const settings = (await openConfig()).read();
  const route = findConfiguredRoute(settings.routes, model);
  const targets = route ? route.targets.map(parseTarget).filter((target) => target.backend !== OFFLINE_BACKEND) : [parseTarget(model)];
  const shown = route || backendType(settings, parseTarget(model).backend) !== undefined ? targets.map((target) => targetInfo(settings, target.backend, target.upstreamModel ?? model)) : [bareInfo(settings, model)];
  const window = route ? contextWindowOf(settings, model) : undefined;
  // Nothing known of it: most often a typo of a name that is known.
  if (!route && shown.every(({ info }) => !info.contextWindow && !info.maxOutput && !info.price && !info.capabilities)) {
    const near = nearMiss(settings, model);
    if (near) note(`no source lists '${model}'${near}`);
  }
  if (options.json) {
    return printJson({
      model,
      ...(route ? { route: route.name, context_window: window?.known ? { value: window.window.tokens, source: window.window.from } : null } : {}),
      targets: shown.map(({ target, backend, type, info }) => ({ target, ...(backend ? { backend } : {}), ...(type ? { type } : {}), ...jsonInfo(info) })),
    });
  }
  if (route) {
    printLine(`${chalk.bold(model)} (route ${route.name})`);
    printLine(`  window clients are told: ${window?.known ? `${formatCount(window.window.tokens)} tokens (${window.window.from})` : window?.reason === 'offline' ? 'none, served offline' : 'unknown'}`);
    if (!shown.length) printLine('  served offline: no upstream model');
  }
  for (const { target, type, info } of shown) {
    printLine(`${route ? '  ' : ''}${chalk.bold(target)}${type ? chalk.dim(` (${type})`) : ''}`);
    for (const line of infoLines(info)) printLine(`${route ? '    ' : '  '}${line}`);
  }
}

/** The known name a model given to `models info` probably meant: a backend's, a route's, a SKU, or a model the catalog or config lists. */
function nearMiss(settings: Settings, model: string): string {
  const { backend, upstreamModel } = parseTarget(model);
  if (upstreamModel !== undefined && !Object.hasOwn(settings.backends, backend)) {
    const hint = didYouMean(backend, Object.keys(settings.backends));
    if (hint) return `: no backend '${backend}'${hint}`;
  }
  const names = [...Object.keys(settings.routes), ...SKUS, ...Object.keys(settings.prices), ...Object.keys(settings.contextWindows), ...packagePriceList(new Date(), priceProviderIds()).map((row) => row.id)];
  return didYouMean(model, new Set(names));
}

function backendType(settings: Settings, backend: string): BackendType | undefined {
  if (!Object.hasOwn(settings.backends, backend)) return undefined;
  const type = settings.backends[backend]!.type;
  return isBackendType(type) ? type : undefined;
}

function targetInfo(settings: Settings, backend: string, upstreamModel: string): TargetInfo {
  const type = backendType(settings, backend);
  return { target: `${backend}:${upstreamModel}`, backend, ...(type ? { type } : {}), info: modelInfo({ type, priceProvider: priceProviderOf(type), upstreamModel, backendName: backend }, overridesOf(settings)) };
}

function bareInfo(settings: Settings, upstreamModel: string): TargetInfo {
  return { target: upstreamModel, info: modelInfo({ type: undefined, priceProvider: undefined, upstreamModel }, overridesOf(settings)) };
}

const overridesOf = (settings: Settings) => ({ prices: settings.prices, contextWindows: settings.contextWindows });

const UNKNOWN = 'unknown (no source lists it)';

function infoLines(info: ModelInfo): string[] {
  const value = (sourced: { value: number; source: string } | undefined, unit: string) => (sourced ? `${formatCount(sourced.value)} ${unit} (${sourced.source})` : UNKNOWN);
  const lines = [`context window: ${value(info.contextWindow, 'tokens')}`];
  if (info.maxInput) lines.push(`max input: ${value(info.maxInput, 'tokens')}`);
  lines.push(`max output: ${value(info.maxOutput, 'tokens')}`);
  if (info.price) {
    lines.push(`prices, USD per million tokens (${info.price.source}):`);
    for (const [label, rate] of priceRows(info.price.value)) lines.push(`  ${label}: ${rate ? rateText(rate) : '-'}`);
  } else lines.push(`prices: ${UNKNOWN}; requests get no cost`);
  if (info.capabilities) {
    lines.push(`capabilities (${info.capabilities.source}):`);
    for (const line of capabilityLines(info.capabilities.value)) lines.push(`  ${line}`);
  } else lines.push(`capabilities: ${UNKNOWN}; requests are sent as the client asked`);
  return lines;
}

const priceRows = (price: CatalogPrice): Array<[string, Rate | undefined]> => [
  ['input', price.input],
  ['cached input', price.cacheRead],
  ['cache write, 5 minutes', price.cacheWrite5m],
  ['cache write, 1 hour', price.cacheWrite1h],
  ['output', price.output],
];

const rateText = (rate: Rate): string =>
  [formatUsdRate(rate.base), ...rate.tiers.map((tier) => `${Number.isNaN(tier.price) ? 'unknown' : formatUsdRate(tier.price)} above ${formatCount(tier.aboveInputTokens)} input tokens`)].join('; ');

function capabilityLines(capabilities: Capabilities): string[] {
  const { reasoning } = capabilities;
  const forms = reasoning ? [reasoning.adaptive ? 'adaptive thinking' : '', reasoning.budget ? 'a thinking budget' : '', reasoning.efforts.length ? `effort ${reasoning.efforts.join(', ')}` : ''].filter(Boolean) : [];
  const refused = [
    ...capabilities.refusesSampling.map((setting) => `${setting} refused`),
    ...(capabilities.exclusiveSampling ? [`${capabilities.exclusiveSampling.join(' and ')} not together`] : []),
    ...(capabilities.samplingOnlyAtEffort ? [`temperature and topP only at effort ${capabilities.samplingOnlyAtEffort}`] : []),
  ];
  return [
    `reasoning: ${reasoning ? `${forms.join('; ') || 'always on, no setting'}${reasoning.canTurnOff ? '' : '; cannot be turned off'}` : 'no'}`,
    `sampling: ${refused.length ? refused.join('; ') : 'all accepted'}`,
    `tools: ${capabilities.tools ? 'yes' : 'no'}, images: ${capabilities.vision ? 'yes' : 'no'}, PDFs: ${capabilities.pdf ? 'yes' : 'no'}`,
  ];
}

/** The JSON form: each value with its source; a rate's unknown long-context step is null. */
function jsonInfo(info: ModelInfo) {
  const rate = (value: Rate | undefined) => (value ? { base: value.base, tiers: value.tiers.map((tier) => ({ above_input_tokens: tier.aboveInputTokens, price: Number.isNaN(tier.price) ? null : tier.price })) } : null);
  return {
    ...(info.catalogId ? { catalog_id: info.catalogId } : {}),
    context_window: info.contextWindow ?? null,
    ...(info.maxInput ? { max_input: info.maxInput } : {}),
    max_output: info.maxOutput ?? null,
    price: info.price
      ? {
          source: info.price.source,
          value: {
            input: rate(info.price.value.input),
            cached_input: rate(info.price.value.cacheRead),
            cache_write_5m: rate(info.price.value.cacheWrite5m),
            cache_write_1h: rate(info.price.value.cacheWrite1h),
            output: rate(info.price.value.output),
          },
        }
      : null,
    capabilities: info.capabilities ?? null,
  };
}
