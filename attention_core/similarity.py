"""The dot product as a similarity score: the draft's movie/user example.

Draft 000, "Dot product as a similarity measure": each dimension of a movie
vector ``m`` and a user vector ``u`` is a feature (romance, action, ...);
the score ``m . u = sum_i m_i u_i`` is large when both are large on the same
features and is pulled down by features where they disagree in sign. In
vector terms ``m . u = |m| |u| cos(theta)``: aligned vectors score high,
opposed ones low.

This module holds the maths (element-wise products, running sum, norms,
cosine, angle, and a sweep of the score as ``u`` turns around ``m``), the
``[dot_product]`` table of the numbers file and the trace record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .numbers_parsing import NumbersError, as_str, as_table, as_vector, check_keys

__all__ = [
    "elementwise_products",
    "running_sums",
    "dot_product",
    "norm",
    "cosine_similarity",
    "angle_degrees",
    "plane_coordinates",
    "rotation_sweep",
    "DotProductInputs",
    "DEFAULT_DOT_PRODUCT",
    "parse_dot_product",
    "DotProductTrace",
    "compute_dot_product",
    "FEATURE_RANGE",
    "SWEEP_ANGLES",
    "as_shown",
    "SHOWN_DECIMALS",
    "COSINE_DECIMALS",
    "cosine_agrees",
    "shown_decimals_for",
    "table_agrees",
]

FEATURE_RANGE = (2, 6)
#: Angles (degrees) between the turning user vector and the movie vector:
#: from aligned (0) through perpendicular (90) to opposed (180).
#: Every 15 degrees: the turning arrow stops often enough that the readout, changing in
#: place at each stop, reads as a count rather than as a series of separate values.
SWEEP_ANGLES = tuple(float(a) for a in range(0, 181, 15))


def as_shown(value: float, decimals: int = 2) -> float:
    """``value`` as it reads on screen at ``decimals`` decimals (the same rounding
    as :func:`attention_core.formatting.format_number`)."""
    return float(f"{value:.{decimals}f}")


def elementwise_products(m: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``m_i * u_i`` for every feature ``i``: each feature's contribution."""
    return np.asarray(m, dtype=float) * np.asarray(u, dtype=float)


def running_sums(m: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Partial sums of the products; the last one is the dot product."""
    return np.cumsum(elementwise_products(m, u))


def dot_product(m: np.ndarray, u: np.ndarray) -> float:
    """The score ``m . u = sum_i m_i u_i``."""
    return float(np.dot(np.asarray(m, dtype=float), np.asarray(u, dtype=float)))


def norm(v: np.ndarray) -> float:
    """Euclidean length ``|v| = sqrt(sum_i v_i^2)``."""
    return float(np.linalg.norm(np.asarray(v, dtype=float)))


def cosine_similarity(m: np.ndarray, u: np.ndarray) -> float:
    """``cos(theta) = m . u / (|m| |u|)``, clipped to [-1, 1] against rounding.

    Raises
    ------
    ValueError
        If either vector is all zeros (its direction, and so the angle, is
        undefined).
    """
    nm, nu = norm(m), norm(u)
    if nm == 0 or nu == 0:
        raise ValueError("cosine of a zero vector is undefined")
    return float(np.clip(dot_product(m, u) / (nm * nu), -1.0, 1.0))


def angle_degrees(m: np.ndarray, u: np.ndarray) -> float:
    """The angle ``theta`` between ``m`` and ``u`` in degrees, 0 to 180.

    Computed as ``2 atan2(|m^ - u^|, |m^ + u^|)`` from the unit vectors, which
    stays accurate near 0 and 180 degrees where ``arccos`` does not; it
    equals ``arccos(cos_theta)``.
    """
    cosine_similarity(m, u)  # the same check for zero vectors
    mh = np.asarray(m, dtype=float) / norm(m)
    uh = np.asarray(u, dtype=float) / norm(u)
    return float(np.degrees(2 * np.arctan2(np.linalg.norm(mh - uh), np.linalg.norm(mh + uh))))


def plane_coordinates(m: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``m`` and ``u`` drawn in the plane that contains them both.

    ``m`` lies along the first axis and ``u`` at angle ``theta`` above it,
    both at their true lengths, so the 2-D dot product of the returned
    points equals ``m . u`` in any number of dimensions.
    """
    theta = np.radians(angle_degrees(m, u))
    nu = norm(u)
    return np.array([norm(m), 0.0]), np.array([nu * np.cos(theta), nu * np.sin(theta)])


def rotation_sweep(
    m: np.ndarray, u: np.ndarray, angles: tuple[float, ...] = SWEEP_ANGLES
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The score as ``u`` turns (keeping its length) in the plane of ``m`` and ``u``.

    Parameters
    ----------
    m, u
        The movie and user vectors (any equal length).
    angles
        Angles in degrees between the turned ``u`` and ``m``.

    Returns
    -------
    users, cosines, scores
        ``users`` (``len(angles) x 2``): the turned ``u`` in the coordinates
        of :func:`plane_coordinates`; ``cosines``: ``cos(angle)``;
        ``scores``: ``|m| |u| cos(angle)``, the dot product at that angle.
    """
    rad = np.radians(np.asarray(angles, dtype=float))
    nm, nu = norm(m), norm(u)
    users = np.stack([nu * np.cos(rad), nu * np.sin(rad)], axis=1)
    cosines = np.cos(rad)
    scores = users @ np.array([nm, 0.0])
    return users, cosines, scores


# --------------------------------------------------------------------------
# The [dot_product] table
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DotProductInputs:
    """Feature names and the movie and user vectors (one value per feature)."""

    features: tuple[str, ...]
    movie: np.ndarray
    user: np.ndarray


def _frozen_vector(values: list[float]) -> np.ndarray:
    v = np.array(values, dtype=float)
    v.flags.writeable = False
    return v


# The draft's story: the user hates romance and the movie has some (a
# negative term u1*m1); the user loves action and the movie is full of it
# (a large positive term u2*m2). Mirrored in default_numbers.toml.
DEFAULT_DOT_PRODUCT = DotProductInputs(
    features=("romance", "action", "comedy"),
    movie=_frozen_vector([0.6, 0.9, 0.2]),
    user=_frozen_vector([-0.8, 0.9, 0.3]),
)


def parse_dot_product(value: Any) -> DotProductInputs:
    """Validate the ``[dot_product]`` table (absent: the draft's example).

    Raises
    ------
    NumbersError
        Unknown keys, 2-6 features expected, vectors of another length,
        non-finite numbers, an all-zero vector (no direction, no angle).
    """
    if value is None:
        return DEFAULT_DOT_PRODUCT
    table: Mapping[str, Any] = as_table(value, "dot_product")
    check_keys(table, {"features", "movie", "user"}, "dot_product")
    for key in ("features", "movie", "user"):
        if key not in table:
            raise NumbersError(f"dot_product.{key}: missing (required in this table)")
    names = table["features"]
    lo, hi = FEATURE_RANGE
    if not isinstance(names, list) or not lo <= len(names) <= hi:
        shown = len(names) if isinstance(names, list) else repr(names)
        raise NumbersError(f"dot_product.features: expected a list of {lo} to {hi} names, got {shown}")
    features = tuple(as_str(n, f"dot_product.features[{i}]").strip() for i, n in enumerate(names))
    for i, name in enumerate(features):
        if not name or len(name) > 14:
            raise NumbersError(
                f"dot_product.features[{i}]: expected a name of 1 to 14 characters, got {name!r}"
            )
    if len(set(features)) != len(features):
        raise NumbersError("dot_product.features: expected distinct names")
    vectors = {}
    for key in ("movie", "user"):
        vec = as_vector(table[key], f"dot_product.{key}", len(features))
        # At least one entry must show as non-zero at two decimals: a vector that
        # rounds to all zeros has no visible direction (and 1e-300 has no norm).
        if np.max(np.abs(vec)) < 0.005:
            raise NumbersError(
                f"dot_product.{key}: expected a vector with an entry of at least 0.005 "
                "in size (not all zeros)")
        if np.max(np.abs(vec)) > 10:
            raise NumbersError(f"dot_product.{key}: expected values from -10 to 10")
        for i, v in enumerate(vec):
            # The screen writes these values as they are (at most six decimals,
            # see shown_decimals_for): a product of two three-decimal values is
            # exact at six, so every computation shown can agree with the true one.
            if abs(round(float(v), 3) - float(v)) > 1e-12:
                raise NumbersError(f"dot_product.{key}[{i}]: expected at most 3 decimals "
                                   f"(the screen writes the values as they are), got {float(v)!r}")
        vectors[key] = vec
    return DotProductInputs(features=features, movie=vectors["movie"], user=vectors["user"])


# --------------------------------------------------------------------------
# The trace record
# --------------------------------------------------------------------------


def _ro(a: Any) -> np.ndarray:
    out = np.array(a, dtype=float)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class DotProductTrace:
    """Every value the ``dot_product`` scene shows."""

    features: tuple[str, ...]
    movie: np.ndarray
    user: np.ndarray
    products: np.ndarray  # m_i u_i
    running_sum: np.ndarray  # m_1 u_1 + ... + m_i u_i
    score: float
    norm_movie: float
    norm_user: float
    norm_product: float  # |m| |u|
    cosine: float
    angle_deg: float
    plane_movie: np.ndarray  # m drawn in the plane of m and u
    plane_user: np.ndarray
    sweep_angles_deg: np.ndarray
    sweep_users: np.ndarray
    sweep_cosines: np.ndarray
    sweep_scores: np.ndarray
    top_term: int  # feature with the largest product (pushes the score up most)
    bottom_term: int  # feature with the smallest product (pulls it down most)
    # How the scene writes them (issues 13 and 25): the table at
    # ``shown_decimals`` and cos(theta) at ``cosine_decimals``, the fewest at
    # which every computation written out, redone from the numbers as shown,
    # gives the shown (true) result; theta = arccos of the shown cosine.
    # ``shown_sweep_scores`` (shown |m| x shown |u| x cos) is not on screen:
    # the sweep shows the true scores, with no product of rounded norms to redo.
    shown_decimals: int = 2
    cosine_decimals: int = 2
    shown_cosine: float = 0.0
    shown_angle_deg: float = 0.0
    shown_sweep_scores: np.ndarray = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "movie": self.movie.tolist(),
            "user": self.user.tolist(),
            "products": self.products.tolist(),
            "running_sum": self.running_sum.tolist(),
            "score": self.score,
            "norm_movie": self.norm_movie,
            "norm_user": self.norm_user,
            "norm_product": self.norm_product,
            "cosine": self.cosine,
            "angle_deg": self.angle_deg,
            "plane": {"movie": self.plane_movie.tolist(), "user": self.plane_user.tolist()},
            "sweep": {
                "angles_deg": self.sweep_angles_deg.tolist(),
                "users": self.sweep_users.tolist(),
                "cosines": self.sweep_cosines.tolist(),
                "scores": self.sweep_scores.tolist(),
            },
            "top_term": self.top_term,
            "bottom_term": self.bottom_term,
            "shown": {
                "decimals": self.shown_decimals,
                "cosine_decimals": self.cosine_decimals,
                "cosine": self.shown_cosine,
                "angle_deg": self.shown_angle_deg,
                "sweep_scores": self.shown_sweep_scores.tolist(),
            },
        }


#: The decimals the dot_product scene may show: at least the theme's two, more
#: when rounding to fewer would make a shown computation contradict the true one.
SHOWN_DECIMALS = (2, 3, 4, 5, 6)


def _shows_zero(value: float, decimals: int) -> bool:
    return float(f"{abs(value):.{decimals}f}") == 0.0


def table_agrees(m: np.ndarray, u: np.ndarray, decimals: int) -> bool:
    """Whether the table of products and running sums, written at ``decimals``,
    agrees with itself and with the true values.

    The reader multiplies the operands as shown and adds the running sum as
    shown: each result must come out as the true result is shown (the same
    text), and a value that is not zero never shows as zero when it is an
    operand, a product, a running sum or the score (its sign is the argument).
    """
    def shown(v: float) -> float:
        return as_shown(float(v), decimals)  # exactly what the screen writes

    def redone(x: float) -> float | None:
        # The reader's exact arithmetic on shown decimals, float noise cleared
        # (9.8 x 6.5 - 63.7 = 1e-14); None at a tie (0.0075 at three decimals),
        # which readers round either way: more decimals are needed then.
        x = round(float(x), 12)
        scaled = abs(x) * 10**decimals
        if abs(scaled - np.floor(scaled) - 0.5) < 1e-6:
            return None
        return as_shown(x, decimals)

    products = elementwise_products(m, u)
    sums = running_sums(m, u)
    for value in (*m, *u, *products, *sums):
        if round(float(value), 12) != 0 and _shows_zero(value, decimals):
            return False
    previous = 0.0
    for mi, ui, p, s in zip(m, u, products, sums):
        if redone(shown(mi) * shown(ui)) != shown(p) or redone(previous + shown(p)) != shown(s):
            return False
        previous = shown(s)
    return True


def cosine_decimals(cosine: float, angle_deg: float) -> int:
    """Decimals for cos(theta) so that arccos of the shown cosine, in whole
    degrees, is the true angle (the drawn one): near +-1 arccos is steep."""
    for decimals in SHOWN_DECIMALS:
        shown = np.clip(as_shown(cosine, decimals), -1.0, 1.0)
        if round(float(np.degrees(np.arccos(shown)))) == round(angle_deg):
            return decimals
    return SHOWN_DECIMALS[-1]


def cosine_agrees(m: np.ndarray, u: np.ndarray, decimals: int, cos_decimals: int) -> bool:
    """Whether score / (|m| |u|), redone from the shown score and norms, gives
    the shown (true) cosine at its shown precision."""
    shown_norms = as_shown(norm(m), decimals) * as_shown(norm(u), decimals)
    if shown_norms == 0:
        return False
    # Not clipped to [-1, 1]: -1.15 / (1.39 x 0.82) = -1.0089 is a false line under a printed
    # -1.00, and the cure is more decimals for the norms, not a clip the reader cannot see.
    from_shown = as_shown(dot_product(m, u), decimals) / shown_norms
    return as_shown(from_shown, cos_decimals) == as_shown(cosine_similarity(m, u), cos_decimals)


#: The decimals cos(theta) may be shown at: more than the table's, since near +-1 the
#: division of the shown score by the shown norms moves the fourth decimal
#: (-0.024140 / (0.220907 x 0.109293) = -0.99985, the true cosine -0.99985 too, but
#: -0.9999 against -0.9998 at four).
COSINE_DECIMALS = (2, 3, 4, 5, 6, 7, 8)


def shown_decimals_for(m: np.ndarray, u: np.ndarray, least: int = 2) -> tuple[int, int]:
    """The fewest decimals (table, cosine) at which every line the scene writes
    out is true for the operands it shows: the table's products and sums, score /
    (|m| |u|) = cos(theta) redone from the shown score and norms, and arccos of
    the shown cosine in whole degrees (the drawn angle). The two are chosen
    together (issue 33): the cosine's decimals from the angle alone could make
    the division line false. When no pair within :data:`SHOWN_DECIMALS` and
    :data:`COSINE_DECIMALS` holds (never seen in range), the most of both."""
    cosine, angle = cosine_similarity(m, u), angle_degrees(m, u)
    first_cos = max(least, cosine_decimals(cosine, angle))
    for decimals in SHOWN_DECIMALS:
        if decimals < least or not table_agrees(m, u, decimals):
            continue
        for cos_decimals in COSINE_DECIMALS:
            if cos_decimals < first_cos or not _arccos_agrees(cosine, angle, cos_decimals):
                continue
            if cosine_agrees(m, u, decimals, cos_decimals):
                return decimals, cos_decimals
    return SHOWN_DECIMALS[-1], COSINE_DECIMALS[-1]


def _arccos_agrees(cosine: float, angle_deg: float, decimals: int) -> bool:
    """Whether arccos of ``cosine`` shown at ``decimals``, in whole degrees, is the true angle."""
    shown = np.clip(as_shown(cosine, decimals), -1.0, 1.0)
    return round(float(np.degrees(np.arccos(shown)))) == round(angle_deg)


def compute_dot_product(inputs: DotProductInputs, decimals: int = 2) -> DotProductTrace:
    """Compute the movie/user example.

    ``decimals``: the fewest the scene shows; it shows more (up to six) when
    rounding to fewer would make a computation written on screen contradict
    the true one (issue 25): ``0.01 x -0.80 = 0.00``, an angle of 90 degrees
    where the arrow shows 130.
    """
    m, u = inputs.movie, inputs.user
    pm, pu = plane_coordinates(m, u)
    users, cosines, scores = rotation_sweep(m, u)
    products = elementwise_products(m, u)
    decimals, cos_decimals = shown_decimals_for(m, u, decimals)
    cosine = cosine_similarity(m, u)
    shown_angle = float(np.degrees(np.arccos(np.clip(as_shown(cosine, cos_decimals), -1.0, 1.0))))
    shown_norms = as_shown(norm(m), decimals) * as_shown(norm(u), decimals)
    return DotProductTrace(
        features=inputs.features,
        movie=_ro(m),
        user=_ro(u),
        products=_ro(products),
        running_sum=_ro(running_sums(m, u)),
        score=dot_product(m, u),
        norm_movie=norm(m),
        norm_user=norm(u),
        norm_product=norm(m) * norm(u),
        cosine=cosine,
        angle_deg=angle_degrees(m, u),
        plane_movie=_ro(pm),
        plane_user=_ro(pu),
        sweep_angles_deg=_ro(SWEEP_ANGLES),
        sweep_users=_ro(users),
        sweep_cosines=_ro(cosines),
        sweep_scores=_ro(scores),
        top_term=int(np.argmax(products)),
        bottom_term=int(np.argmin(products)),
        shown_decimals=decimals,
        cosine_decimals=cos_decimals,
        shown_cosine=cosine,
        shown_angle_deg=shown_angle,
        shown_sweep_scores=_ro(shown_norms * cosines),
    )
