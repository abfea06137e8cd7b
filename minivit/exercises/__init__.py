"""Checked exercises for the lessons: ``check("02.1", answer)`` runs an answer against the reference
behaviour and prints one line.

    ✓ 02.1: <what the answer shows>
    ✗ 02.1: <what differs: a shape, a value at a position, a property that fails> — hint: <where to look>

An exercise left unanswered (``answer`` is ``...`` or None) prints ``02.1: not answered yet``. The
checks test what an answer does, not how it is written, so any correct answer passes: a function is
called on inputs of the check's own, a tensor is measured for the property the exercise asks for.
No check prints the solution; the worked solutions are in the repository's ``solutions/`` folder.
Where the package has a function that is the answer (``lst.forced`` for 07.4, say), the learner's
function may not call it: the check says so. A check stops an answer that runs past `TIME_LIMIT`.

The checks live one file per lesson (``lesson_00.py`` ... ``lesson_12.py``); each registers its
exercises in `EXERCISES` by id, "NN.k" for lesson NN's exercise k.
"""

from __future__ import annotations

from minivit.exercises import (
    lesson_00,
    lesson_01,
    lesson_02,
    lesson_03,
    lesson_04,
    lesson_05,
    lesson_06,
    lesson_07,
    lesson_08,
    lesson_09,
    lesson_10,
    lesson_11,
    lesson_12,
)
from minivit.exercises.core import (
    EXERCISES,
    Exercise,
    Raised,
    TooLong,
    Wrong,
    kind,
    learner_line,
    short,
    time_limit,
)

LESSONS = (
    lesson_00,
    lesson_01,
    lesson_02,
    lesson_03,
    lesson_04,
    lesson_05,
    lesson_06,
    lesson_07,
    lesson_08,
    lesson_09,
    lesson_10,
    lesson_11,
    lesson_12,
)


#: How long a check may run, in seconds, before it stops the answer (an endless loop, say): far
#: above the slowest check with a slow answer (a few seconds), well below a learner's patience.
TIME_LIMIT = 60.0


def known() -> list[str]:
    """Every exercise id, in lesson order."""
    return sorted(EXERCISES, key=lambda i: tuple(int(p) for p in i.split(".")))


def unknown(exercise_id: object) -> str | None:
    """Why `exercise_id` names no checked exercise (one line that lists those that do), or None."""
    if isinstance(exercise_id, str) and exercise_id.strip() in EXERCISES:
        return None
    ids = ", ".join(known())
    if not isinstance(exercise_id, str):
        return f'the exercise id is {kind(exercise_id)}, not text such as "02.1"; the checked ones: {ids}'
    lesson, dot, number = exercise_id.strip().partition(".")
    if dot and lesson.isdigit() and number.isdigit() and f"{int(lesson):02d}.{int(number)}" in EXERCISES:
        return f'there is no exercise {exercise_id!r}: write it "{int(lesson):02d}.{int(number)}"'
    return (
        f"{exercise_id!r} has no check: a discussion exercise has none, or the id is mistyped "
        f"(NN.k, lesson NN's exercise k); the checked ones: {ids}"
    )


def get(exercise_id: str) -> Exercise:
    """The exercise `exercise_id`, or a ValueError that lists the known ids."""
    why = unknown(exercise_id)
    if why is not None:
        raise ValueError(why)
    return EXERCISES[exercise_id.strip()]


def check(exercise_id: str, answer: object = ..., *, seconds: float | None = None) -> bool:
    """Check `answer` to exercise `exercise_id` ("NN.k") and print one line: ✓ with what it shows, ✗
    with what differs and a hint, or that it is not answered yet. An id that names no checked
    exercise is told so in one line, with the ids that do.

    Args:
        seconds: how long the check may run before it stops the answer (default `TIME_LIMIT`).

    Returns:
        True when the answer passes; False when it does not, or is left as ``...`` or None.
    """
    why = unknown(exercise_id)
    if why is not None:
        print(f"✗ {short(why, 600)}")
        return False
    ex = EXERCISES[exercise_id.strip()]
    if answer is ... or answer is None:
        print(f"{ex.id}: not answered yet")
        return False
    name = "answer_" + ex.id.replace(".", "_")
    limit = TIME_LIMIT if seconds is None else seconds
    try:
        with time_limit(limit):
            shows = ex.run(answer)
    except TooLong as stopped:
        where = learner_line(stopped.__traceback__)
        print(
            f"✗ {ex.id}: the check stopped your answer after {limit:g} s"
            + (f", in {where}" if where else "")
            + f" (an endless loop, or far more work than needed) — hint: {ex.hint}"
        )
        return False
    except Wrong as wrong:
        hint = wrong.hint.replace("answer_NN_k", name)
        print(f"✗ {ex.id}: {short(wrong.what)} — hint: {short(hint, 400)}")
        return False
    except Raised as raised:  # the learner's function raised when the check called it
        error = raised.error
        where = f", in {raised.where}" if raised.where else ""
        print(
            f"✗ {ex.id}: your answer raised {type(error).__name__}: {short(error, 120)}{where} — "
            f"hint: {ex.hint}"
        )
        return False
    except Exception as error:  # the check could not use what the answer gave
        print(
            f"✗ {ex.id}: the check could not use what your answer gave ({type(error).__name__}: "
            f"{short(error, 120)}) — hint: {ex.hint}"
        )
        return False
    print(f"✓ {ex.id}: {short(shows, 400)}")
    return True


__all__ = ["EXERCISES", "LESSONS", "TIME_LIMIT", "check", "get", "known"]
