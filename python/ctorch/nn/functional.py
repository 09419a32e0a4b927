"""ctorch.nn.functional: the functional forms of the layers and losses.
Each family keeps its functions in a private module (nn/_functional_*.py)
and is re-exported here."""
from ._functional_basic import *  # noqa: F401,F403,E402
from ._functional_basic import (  # noqa: F401,E402
    _get_softmax_dim, _in_projection, _in_projection_packed, _mha_shape_check,
    _scaled_dot_product_attention,
)
from ._functional_loss import *  # noqa: F401,F403,E402
from ._functional_conv import *  # noqa: F401,F403,E402
from ._functional_norm import *  # noqa: F401,F403,E402
