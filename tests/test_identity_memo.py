"""scigame.identity_memo: a value made once per object, by identity, within a bound."""

from __future__ import annotations

from scigame.identity_memo import IdentityMemo


def test_a_value_is_made_once_per_object_and_equal_objects_are_apart():
    made = []
    memo = IdentityMemo(10)
    a, b = {"x": 1}, {"x": 1}  # equal, not the same object
    assert memo.get(a, lambda o: made.append(o) or len(made)) == 1
    assert memo.get(a, lambda o: made.append(o) or len(made)) == 1
    assert memo.get(b, lambda o: made.append(o) or len(made)) == 2
    assert made[0] is a and made[1] is b and len(memo) == 2


def test_the_memo_never_holds_more_than_its_limit_and_an_id_is_not_taken_for_another_object():
    memo = IdentityMemo(3)
    for i in range(10):
        memo.get([i], lambda o: o[0])  # each list is dropped by the caller at once: its id may be reused
        assert len(memo) <= 3
    # the object is held beside its value, so a new object never gets an old one's value
    assert all(memo.get([i], lambda o: o[0]) == i for i in range(20, 40))
