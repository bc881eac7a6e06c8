"""A bounds case's draw (runner/harness/kaudit_harness_problem.py: integers_at_their_bounds):
torch.randint's values pushed to the ends of their range, the same for the same seed, values the
problem's own draw can return, the problem's other draws left as they were, Tensor.random_ given an end
treated alike, and torch.randint given back however the draw ends.

Run with an interpreter that has torch (Debian's /usr/bin/python3 with python3-torch); exits 77
(skipped) without one."""
import unittest

from harness_test_torch import torch
from kaudit_harness_problem import integers_at_their_bounds, randint_span, random_span


def lengths(max_len=512, batch=8):
    """A paged-attention problem's draw: lengths from 1 to max_len, the first always max_len."""
    x = torch.randn(batch, 4)
    lens = torch.randint(1, max_len + 1, (batch,), dtype=torch.int32)
    lens[0] = max_len
    return x, lens, torch.randn(3)


def drawn(seed, on=True, draw=lengths):
    torch.manual_seed(seed)
    with integers_at_their_bounds(torch, seed, on):
        return draw()


class Span(unittest.TestCase):
    def test_every_form_of_the_call(self):
        self.assertEqual(randint_span((10, (3,)), {}), (0, 10))
        self.assertEqual(randint_span((2, 10, (3,)), {}), (2, 10))
        self.assertEqual(randint_span((), {"low": 2, "high": 10, "size": (3,)}), (2, 10))
        self.assertEqual(randint_span((10,), {"size": (3,)}), (0, 10))
        self.assertEqual(randint_span((2,), {"high": 10, "size": (3,)}), (2, 10))
        self.assertIsNone(randint_span(((3,),), {}))
        self.assertIsNone(randint_span((torch.tensor(2), (3,)), {}))

    def test_every_form_of_random_(self):
        self.assertEqual(random_span((10,), {}), (0, 10))
        self.assertEqual(random_span((2, 10), {}), (2, 10))
        self.assertEqual(random_span((), {"from": 2, "to": 10}), (2, 10))
        self.assertEqual(random_span((2,), {"to": 10}), (2, 10))
        self.assertEqual(random_span((), {"to": 10, "generator": None}), (0, 10))
        self.assertIsNone(random_span((), {}))  # the dtype's whole range: no end a problem means
        self.assertIsNone(random_span((), {"from": 3}))


class BoundsDraw(unittest.TestCase):
    def test_values_at_both_ends_and_none_outside(self):
        _, lens, _ = drawn(1002, draw=lambda: lengths(batch=64))
        self.assertEqual(lens.dtype, torch.int32)
        self.assertEqual(int(lens.min()), 1)
        self.assertEqual(int(lens.max()), 512)
        at_ends = int(((lens == 1) | (lens == 512)).sum())
        self.assertGreater(at_ends, 64 // 3)
        self.assertLess(at_ends, 64)  # some stay as drawn

    def test_a_small_draw_still_holds_the_low_end_after_its_first_is_overwritten(self):
        for seed in range(1000, 1040):
            _, lens, _ = drawn(seed)
            self.assertEqual(int(lens[-1]), 1, seed)

    def test_the_same_seed_draws_the_same_and_another_seed_other_places(self):
        a, b = drawn(1002, draw=lambda: lengths(batch=256)), drawn(1002, draw=lambda: lengths(batch=256))
        self.assertTrue(all(torch.equal(u, v) for u, v in zip(a, b)))
        c = drawn(1003, draw=lambda: lengths(batch=256))
        self.assertFalse(torch.equal(a[1], c[1]))

    def test_the_problems_other_draws_are_as_without_it(self):
        plain, bounded = drawn(1002, on=False), drawn(1002)
        self.assertTrue(torch.equal(plain[0], bounded[0]))
        self.assertTrue(torch.equal(plain[2], bounded[2]))
        self.assertFalse(torch.equal(plain[1], bounded[1]))

    def test_randint_like_out_and_a_boolean_dtype(self):
        def draw():
            out = torch.empty(50, dtype=torch.int64)
            torch.randint(3, 9, (50,), out=out)
            like = torch.randint_like(torch.empty(50), 4, 7)
            flags = torch.randint(0, 2, (50,), dtype=torch.bool)
            return out, like, flags

        out, like, flags = drawn(5, draw=draw)
        self.assertEqual((int(out.min()), int(out.max())), (3, 8))
        self.assertEqual((float(like.min()), float(like.max())), (4.0, 6.0))
        self.assertEqual(flags.dtype, torch.bool)
        self.assertTrue(bool(flags.any()) and not bool(flags.all()))

    def test_tensor_random_with_an_end(self):
        def draw():
            lens = torch.empty(60, dtype=torch.int32).random_(1, 513)
            ids = torch.empty(60, dtype=torch.int64).random_(7)
            whole = torch.empty(60, dtype=torch.int16).random_()
            return lens, ids, whole

        lens, ids, whole = drawn(1002, draw=draw)
        self.assertEqual((int(lens.min()), int(lens.max())), (1, 512))
        self.assertEqual((int(lens[0]), int(lens[-1])), (512, 1))
        self.assertGreater(int(((lens == 1) | (lens == 512)).sum()), 60 // 3)
        self.assertEqual((int(ids.min()), int(ids.max())), (0, 6))
        torch.manual_seed(1002)
        plain = draw()
        self.assertTrue(torch.equal(whole, plain[2]))  # no end given: drawn as without the case

    def test_randint_is_given_back_even_when_the_draw_raises(self):
        real, real_random_ = torch.randint, torch.Tensor.random_
        with self.assertRaises(ValueError):
            drawn(1, draw=lambda: (_ for _ in ()).throw(ValueError("no")))
        self.assertIs(torch.randint, real)
        self.assertIs(torch.Tensor.random_, real_random_)
        drawn(1)
        self.assertIs(torch.randint, real)
        self.assertIs(torch.Tensor.random_, real_random_)


if __name__ == "__main__":
    unittest.main()
