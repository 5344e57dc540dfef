"""Blow: write each tendril point's acceleration — its rope's gravity, the wind, the wave, the shake.

Reads: Tendrils, Frame (t, rng, reduced_motion). Writes: Forces.extra, Tendrils.shake.

For point i of rope r with n points (seed 002):
    a.x = wind(t)·(i/n) + G·cos(gdir_r)
    a.y = wave(t, i)·(i/n) + G·sin(gdir_r)
    wind(t)    = wind·sin(t·freq_r + phase_r) + gust·sin(gust_freq·t + r)
    wave(t, i) = wave·sin(wave_freq·t + phase_r + wave_lag·i)
Gravity does not point down: each rope has its own direction gdir, a fan that
opens the bundle like an anemone. The wind is horizontal and grows toward the
tip; the wave's phase lags along the rope, so it travels from anchor to tip.
Electrified, gravity is 0 and every point gets a uniform random ±shake px/s² per
axis per step (from the scene's generator). Reduced motion turns off wind and
wave. The integrate system adds these to `Forces.gravity` (kept at 0).
"""
from __future__ import annotations

import math

import esper

from ropework.components import Forces
from ropework.components.tendrils import Tendrils
from ropework.systems.services.kernels import kernel


@kernel()
def blow(extra, rope_of, along, frac, phase, freq, gdir, gravity, t,
         wind, gust, gust_freq, wave, wave_freq, wave_lag, shake, shake_amp):
    """Fill extra: float32[n, 2] px/s². shake: float32[n, 2] uniform 0..1, used when shake_amp > 0."""
    for p in range(extra.shape[0]):
        r = rope_of[p]
        f = frac[p]
        w = wind * math.sin(t * freq[r] + phase[r]) + gust * math.sin(gust_freq * t + r)
        v = wave * math.sin(wave_freq * t + phase[r] + wave_lag * along[p])
        ax = w * f + gravity * math.cos(gdir[r])
        ay = v * f + gravity * math.sin(gdir[r])
        if shake_amp > 0.0:
            ax += (shake[p, 0] - 0.5) * 2.0 * shake_amp
            ay += (shake[p, 1] - 0.5) * 2.0 * shake_amp
        extra[p, 0] = ax
        extra[p, 1] = ay


class Blow(esper.Processor):
    def process(self, frame):
        calm = 0.0 if frame.reduced_motion else 1.0
        for _, (td, forces) in esper.get_components(Tendrils, Forces):
            shake = 0.0
            if td.electrified:
                frame.rng.random(out=td.shake, dtype=td.shake.dtype)
                shake = td.electric_shake
            blow(forces.extra, td.rope_of, td.along, td.frac, td.phase, td.freq, td.gdir,
                 0.0 if td.electrified else td.gravity, frame.t,
                 td.wind * calm, td.gust * calm, td.gust_freq, td.wave * calm, td.wave_freq, td.wave_lag,
                 td.shake, shake)
