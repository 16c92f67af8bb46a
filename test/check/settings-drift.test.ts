/** A baseline made under other settings is compared all the same, with one line per setting that differs. */
import { describe, expect, it } from 'vitest';
import { settingsDrift } from '../../src/check/index.js';
import type { Report } from '../../src/model/index.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

function withSettings(settings: Partial<Report['settings']>): Report {
  return { ...SMALL_FLEET, settings: { ...SMALL_FLEET.settings, ...settings } };
}

describe('settingsDrift', () => {
  it('says nothing when the settings agree', () => {
    expect(settingsDrift(SMALL_FLEET, SMALL_FLEET, 'base.json')).toEqual([]);
  });

  it('names each setting that differs, with both values', () => {
    const lines = settingsDrift(withSettings({ idleThresholdPct: 10, region: null }), withSettings({ idleThresholdPct: 5, region: 'us-west-2' }), 'base.json');
    expect(lines).toEqual([
      'the baseline base.json was made with --idle-threshold 10, this run with 5: figures compared across them move with the setting',
      'the baseline base.json was made with --region unset, this run with us-west-2: figures compared across them move with the setting',
    ]);
  });
});
