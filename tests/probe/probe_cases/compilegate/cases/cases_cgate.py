"""One case per operator of cgate; one that fails eagerly (a documented failure the page shows), one skipped."""

import torch

import cgate
from sphinx_kexport.probe import case

CASES = [case(name, getattr(cgate, name), [torch.rand(2, 3, 8, 8)], package="cgate")
         for name in ("blur", "sharpen", "invert")]
CASES.append(case("strict_mean", cgate.strict_mean, [torch.rand(2, 3, 8, 8)], package="cgate"))
CASES.append(case("slow_path", cgate.blur, [torch.rand(2, 3, 8, 8)], package="cgate",
                  skip="too slow to probe on every pull request"))
