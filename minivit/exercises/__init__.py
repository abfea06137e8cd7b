"""Checked exercises for the lessons: ``check("02.1", answer)`` runs an answer against the reference
behaviour and prints one line.

    ✓ 02.1: <what the answer shows>
    ✗ 02.1: <what differs: a shape, a value at a position, a property that fails> — hint: <where to look>

An exercise left unanswered (``answer`` is ``...`` or None) prints ``02.1: not answered yet``. The
checks test what an answer does, not how it is written, so any correct answer passes: a function is
called on inputs of the check's own, a tensor is measured for the property the exercise asks for.
No check prints the solution; the worked solutions are in the repository's ``solutions/`` folder.

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
from minivit.exercises.core import EXERCISES, Exercise, Raised, Wrong, short

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


def known() -> list[str]:
    """Every exercise id, in lesson order."""
    return sorted(EXERCISES, key=lambda i: tuple(int(p) for p in i.split(".")))


def get(exercise_id: str) -> Exercise:
    """The exercise `exercise_id`, or a ValueError that lists the known ids."""
    if exercise_id not in EXERCISES:
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {', '.join(known())}")
    return EXERCISES[exercise_id]


def check(exercise_id: str, answer: object = ...) -> bool:
    """Check `answer` to exercise `exercise_id` ("NN.k") and print one line: ✓ with what it shows, ✗
    with what differs and a hint, or that it is not answered yet.

    Returns:
        True when the answer passes; False when it does not, or is left as ``...`` or None.

    Raises:
        ValueError: `exercise_id` is not an exercise (the message lists those that are).
    """
    ex = get(exercise_id)
    if answer is ... or answer is None:
        print(f"{ex.id}: not answered yet")
        return False
    name = "answer_" + ex.id.replace(".", "_")
    try:
        shows = ex.run(answer)
    except Wrong as wrong:
        hint = wrong.hint.replace("answer_NN_k", name)
        print(f"✗ {ex.id}: {short(wrong.what)} — hint: {short(hint, 400)}")
        return False
    except Raised as raised:  # the learner's function raised when the check called it
        error = raised.error
        print(f"✗ {ex.id}: your answer raised {type(error).__name__}: {short(error, 120)} — hint: {ex.hint}")
        return False
    except Exception as error:  # the check could not use what the answer gave
        print(
            f"✗ {ex.id}: the check could not use what your answer gave ({type(error).__name__}: "
            f"{short(error, 120)}) — hint: {ex.hint}"
        )
        return False
    print(f"✓ {ex.id}: {short(shows, 400)}")
    return True


__all__ = ["EXERCISES", "LESSONS", "check", "get", "known"]
