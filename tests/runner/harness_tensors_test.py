"""The harness's tensor helpers that work in pieces (runner/harness/kaudit_harness_tensors.py, and
row_ties of kaudit_harness_probes.py):
the same bits as the whole-tensor forms they replace, and no tensor of the caller's changed.
Run with an interpreter that has torch (Debian's /usr/bin/python3 with python3-torch); exits 77
(skipped) without one."""
import tempfile
import unittest

from harness_test_torch import torch
import kaudit_harness_probes as probes
import kaudit_harness_protocol as protocol
import kaudit_harness_tensors as tensors


class InPieces(unittest.TestCase):
    def setUp(self):
        # Pieces of 7 elements: every tensor below spans several, the last one short.
        self.saved = tensors.PIECE_ELEMENTS
        tensors.PIECE_ELEMENTS = 7

    def tearDown(self):
        tensors.PIECE_ELEMENTS = self.saved

    def test_pieces_cover_every_element_once(self):
        self.assertEqual(tensors.pieces(16), [(0, 7), (7, 7), (14, 2)])
        self.assertEqual(tensors.pieces(0), [])

    def test_same_values_sees_a_change_in_any_piece(self):
        a = torch.randn(5, 9, dtype=torch.bfloat16)
        self.assertTrue(tensors.same_values(torch, [a], [a.clone()]))
        for flat_index in (0, 13, 44):  # the first piece, a middle one, the last (short) one
            b = a.clone()
            b.view(-1)[flat_index] += 1
            self.assertFalse(tensors.same_values(torch, [a], [b]), flat_index)

    def test_same_values_is_bitwise(self):
        a = torch.zeros(20)
        b = a.clone()
        b[17] = -0.0
        self.assertFalse(tensors.same_values(torch, [a], [b]))

    def test_scaled_read_is_the_whole_tensor_formula(self):
        t = torch.randn(6, 11, dtype=torch.bfloat16)
        want = (t.to(torch.float32) * 1000.0).to(torch.bfloat16)
        got = t.clone()
        tensors.scale_in_place(torch, got, 1000.0)
        self.assertTrue(torch.equal(got.view(torch.uint8), want.view(torch.uint8)))

    def test_a_scaled_read_leaves_the_files_read_before_as_they_were(self):
        # On the CPU the host's tensor is the device's: scaling it in place
        # would change every later case read from it.
        protocol.CONFIG.update({"xfer": tempfile.mkdtemp(), "device": "cpu"})
        host_tensor = torch.randn(30)
        host = {"x.bin": host_tensor}
        kept = host_tensor.clone()
        got = tensors.read_values(torch, [{"file": "x.bin", "scale": 4.0}], "cpu", None, host)[0]
        self.assertTrue(torch.equal(host_tensor, kept))
        self.assertTrue(torch.equal(got, (kept * 4.0)))
        cache = {}
        scaled = tensors.read_values(torch, [{"file": "x.bin", "scale": 4.0}], "cpu", cache, host)[0]
        plain = tensors.read_values(torch, [{"file": "x.bin"}], "cpu", cache, host)[0]
        self.assertTrue(torch.equal(plain, kept))
        self.assertTrue(torch.equal(scaled, kept * 4.0))

    def test_ties_counted_over_blocks_of_rows_are_the_whole_count(self):
        t = torch.randint(0, 6, (9, 5)).to(torch.bfloat16)  # many equal values in every row
        s = torch.sort(t.float(), dim=-1).values
        whole = int((s[:, 1:] == s[:, :-1]).sum())
        saved = probes.TIES_ROWS_ELEMENTS
        try:
            probes.TIES_ROWS_ELEMENTS = 12  # two rows a block, the last one alone
            self.assertEqual(probes.row_ties(torch, t), whole)
        finally:
            probes.TIES_ROWS_ELEMENTS = saved
        self.assertGreater(whole, 0)


if __name__ == "__main__":
    unittest.main()
