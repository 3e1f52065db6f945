"""The origin case, apache/tvm#5928, from Python: every batch norm of the MobileNetV2 that
TVM's MXNet importer makes is outlined (53); TVM's behaviour (relay_compat) outlines 48."""
import re

import graphpat.relay
from graphpat.dpl import is_op, is_tuple_get_item, wildcard
from conftest import DATA


def batch_norm():
    return is_tuple_get_item(is_op("nn.batch_norm")(wildcard(), wildcard(), wildcard(),
                                                    wildcard(), wildcard()), 0)


def model():
    return graphpat.relay.parse(
        (DATA / "corpus" / "models" / "mobilenet_v2_mxnet_style.relay").read_text())


def test_every_batch_norm_is_outlined():
    partitioned, report = batch_norm().partition(model(), attrs={"Composite": "bn"})
    # The five duplicated `%N.0` TupleGetItems are merged first (the corpus README's five).
    assert report == {"accepted": 53, "rejected": [], "not_outlined": 0, "duplicated": [],
                      "stopped_matches": 0, "cse_merged": 5}
    assert partitioned.astext().count('Composite="bn"') == 53


def test_relay_compat_gives_tvms_48():
    _, report = batch_norm().partition(model(), attrs={"Composite": "bn"}, relay_compat=True)
    # The five refused batch norms: both TupleGetItems of each are refused, each because the
    # other one reads the batch norm (used outside, not post-dominated).
    assert (report["accepted"], len(report["rejected"])) == (48, 10)
    refusal = re.compile(r"group at %(\d+) \(TupleGetItem\) refused: interior %(\d+) "
                         r"\(nn\.batch_norm\) is used by %(\d+) \(TupleGetItem\) outside the "
                         r"group, which the group's root does not post-dominate")
    refused = {refusal.fullmatch(r).groups() for r in report["rejected"]}
    assert {(user, bn, root) for root, bn, user in refused} == refused
    assert len({bn for _, bn, _ in refused}) == 5
