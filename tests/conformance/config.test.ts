import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, ValidationError, parseConfig } from '../../src/core/index.ts';

describe('parseConfig', () => {
  it('fills defaults for an empty record', () => {
    expect(parseConfig({})).toEqual({ config: DEFAULT_CONFIG, warnings: [] });
  });

  it('clamps PLANNER_MAX_STEPS to 1..50 and MODEL_TEMPERATURE to 0..2 with warnings', () => {
    expect(parseConfig({ PLANNER_MAX_STEPS: '99' })).toMatchObject({
      config: { plannerMaxSteps: 50 },
      warnings: ['PLANNER_MAX_STEPS=99 is above 50; clamped to 50'],
    });
    expect(parseConfig({ PLANNER_MAX_STEPS: '0' }).config.plannerMaxSteps).toBe(1);
    expect(parseConfig({ PLANNER_MAX_STEPS: '-7' }).config.plannerMaxSteps).toBe(1);
    expect(parseConfig({ PLANNER_MAX_STEPS: ' 12 ' })).toMatchObject({ config: { plannerMaxSteps: 12 }, warnings: [] });
    expect(parseConfig({ MODEL_TEMPERATURE: '3.5' }).config.modelTemperature).toBe(2);
    expect(parseConfig({ MODEL_TEMPERATURE: '-0.1' }).config.modelTemperature).toBe(0);
    expect(parseConfig({ MODEL_TEMPERATURE: '0.7' }).config.modelTemperature).toBe(0.7);
  });

  it('falls back to defaults on invalid values, with a warning each', () => {
    const { config, warnings } = parseConfig({
      PLANNER_MAX_STEPS: 'ten',
      MODEL_TEMPERATURE: 'NaN',
      EMBEDDING_DIM: '1e999',
      EMBEDDING_BIGRAMS: 'maybe',
      CUGAR_PROFILE: 'no spaces!',
    });
    expect(config).toEqual(DEFAULT_CONFIG);
    expect(warnings).toHaveLength(5);
    expect(parseConfig({ PLANNER_MAX_STEPS: '2.5' }).config.plannerMaxSteps).toBe(DEFAULT_CONFIG.plannerMaxSteps);
    expect(parseConfig({ EMBEDDING_BIGRAMS: 'off', CUGAR_PROFILE: 'ops' }).config).toMatchObject({ embeddingBigrams: false, defaultProfile: 'ops' });
  });

  it('always yields values inside their bounds, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('PLANNER_MAX_STEPS', 'MODEL_TEMPERATURE', 'EMBEDDING_DIM', 'PLANNER_MIN_SIMILARITY'),
          fc.oneof(fc.string(), fc.double().map(String), fc.integer().map(String)),
        ),
        (env) => {
          const { config } = parseConfig(env);
          return (
            Number.isInteger(config.plannerMaxSteps) &&
            config.plannerMaxSteps >= 1 &&
            config.plannerMaxSteps <= 50 &&
            config.modelTemperature >= 0 &&
            config.modelTemperature <= 2 &&
            config.embeddingDim >= 8 &&
            config.plannerMinSimilarity <= 1
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('rejects a record that is not strings', () => {
    expect(() => parseConfig({ PLANNER_MAX_STEPS: 5 } as never)).toThrow(ValidationError);
  });
});
