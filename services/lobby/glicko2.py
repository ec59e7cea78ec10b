"""Glicko-2 ratings, from Mark Glickman, "Example of the Glicko-2 system" (2013).

Each finished match is one rating period for its players. A multi-player match counts as a set of
pairwise games: for two seats, the one ranked higher (see ``services.lobby.records``) scores 1,
equal ranks score 0.5. Players who did not play in a period only have their deviation grow when
they next play (step 6 of the paper, applied per elapsed period is left out: one period per match).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_RATING", "SCALE", "TAU", "Rating", "rate"]

SCALE = 173.7178
TAU = 0.5
EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale (r, RD) with volatility σ."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


DEFAULT_RATING = Rating()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(
    player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU, max_deviation: float = 350.0
) -> Rating:
    """The player's rating after one period with ``results`` = [(opponent rating, score 0/0.5/1)]."""
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        # Step 6 only: the deviation grows.
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(max_deviation, phi_star * SCALE), sigma)

    # Step 3: estimated variance v; step 4: estimated improvement delta.
    v_inv = 0.0
    delta_sum = 0.0
    for opp, score in results:
        mu_j = (opp.rating - 1500.0) / SCALE
        phi_j = opp.deviation / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum

    # Step 5: new volatility (Illinois algorithm).
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(200):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)

    # Steps 6-8.
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Rating(
        rating=SCALE * new_mu + 1500.0,
        deviation=min(max_deviation, SCALE * new_phi),
        volatility=new_sigma,
    )
