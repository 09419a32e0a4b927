"""nn.init against PyTorch 1.13: seeded initializations bit for bit (the
generator is PyTorch's, and the draws happen in the same order), gains,
fans and error texts.

Scenarios return plain values; each is compared with the recorded EXPECTED
(regenerate with `python3 tests/py/test_nn_init.py` where torch imports)
and with real torch.
"""
import sys
import warnings

import pytest

import ctorch


def exact(t):
    return ["X", str(t.dtype), list(t.shape), t.tolist()]


def close(t, nd=6):
    """Values to nd decimals, for results that go through LAPACK."""
    def r(v):
        return [r(e) for e in v] if isinstance(v, list) else round(v, nd) + 0.0
    return ["C", str(t.dtype), list(t.shape), r(t.tolist())]


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return [type(e).__name__, str(e)]
    return None


def s_basic(T):
    init = T.nn.init
    T.manual_seed(0)
    res = []
    res.append(exact(init.uniform_(T.empty(3, 4))))
    res.append(exact(init.uniform_(T.empty(5), -2.0, 3.0)))
    res.append(exact(init.normal_(T.empty(2, 3))))
    res.append(exact(init.normal_(T.empty(7, dtype=T.float64), 1.5, 0.25)))
    res.append(exact(init.constant_(T.empty(2, 2), 0.3)))
    res.append(exact(init.ones_(T.empty(3))))
    res.append(exact(init.zeros_(T.empty(3))))
    # (erfinv may differ from torch's float kernel in the last bit)
    res.append(close(init.trunc_normal_(T.empty(4, 5), 0.0, 1.0, -0.5, 1.5)))
    res.append(close(init.trunc_normal_(T.empty(20), std=0.02), 6))
    p = T.nn.Parameter(T.empty(3, 3))
    init.uniform_(p)
    res.append([p.requires_grad, p.grad_fn is None, p.is_leaf])
    res.append(exact(T.rand(2)))
    return res


def s_eye_dirac(T):
    init = T.nn.init
    res = [exact(init.eye_(T.empty(3, 5))), exact(init.eye_(T.empty(4, 2)))]
    res.append(exact(init.dirac_(T.empty(2, 3, 3))))
    res.append(exact(init.dirac_(T.empty(4, 2, 3, 3), groups=2)))
    res.append(exact(init.dirac_(T.empty(1, 1, 1, 3, 3))))
    res.append(err(lambda: init.eye_(T.empty(3))))
    res.append(err(lambda: init.dirac_(T.empty(3, 3))))
    res.append(err(lambda: init.dirac_(T.empty(3, 3, 3), groups=2)))
    return res


def s_xavier_kaiming(T):
    init = T.nn.init
    T.manual_seed(1)
    res = []
    res.append(exact(init.xavier_uniform_(T.empty(3, 5))))
    relu_gain = init.calculate_gain("relu")
    res.append(exact(init.xavier_uniform_(T.empty(4, 2, 3), gain=relu_gain)))
    res.append(exact(init.xavier_normal_(T.empty(6, 2))))
    res.append(exact(init.xavier_normal_(T.empty(2, 3, 2, 2), gain=0.5)))
    res.append(exact(init.kaiming_uniform_(T.empty(4, 3))))
    res.append(exact(init.kaiming_uniform_(T.empty(4, 3, 2), a=0.2, mode="fan_out")))
    res.append(exact(init.kaiming_uniform_(T.empty(5, 2), nonlinearity="relu")))
    res.append(exact(init.kaiming_normal_(T.empty(3, 4))))
    res.append(exact(init.kaiming_normal_(T.empty(3, 4, 1, 2), mode="fan_out",
                                          nonlinearity="tanh")))
    res.append(exact(init.kaiming_uniform_(T.empty(2, 3, dtype=T.float64), a=5 ** 0.5)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        z = init.kaiming_uniform_(T.empty(0, 3))
        init.kaiming_normal_(T.empty(3, 0))
        res.append([list(z.shape), [str(m.message) for m in w]])
    res.append(err(lambda: init.kaiming_uniform_(T.empty(3, 3), mode="fan_avg")))
    res.append(err(lambda: init.xavier_uniform_(T.empty(3))))
    res.append(err(lambda: init.kaiming_normal_(T.empty(3), nonlinearity="relu")))
    res.append(exact(T.rand(2)))
    return res


def s_fans_and_gains(T):
    init = T.nn.init
    fan = init._calculate_fan_in_and_fan_out
    res = [fan(T.empty(3, 4)), fan(T.empty(8, 4, 3, 3)), fan(T.empty(2, 5, 7)),
           err(lambda: fan(T.empty(3))), err(lambda: fan(T.tensor(1.0)))]
    names = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
             "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
             "leaky_relu", "selu"]
    res.append([init.calculate_gain(n) for n in names])
    res.append([init.calculate_gain("leaky_relu", 0.2),
                init.calculate_gain("leaky_relu", 1)])
    res.append(err(lambda: init.calculate_gain("leaky_relu", True)))
    res.append(err(lambda: init.calculate_gain("leaky_relu", "x")))
    res.append(err(lambda: init.calculate_gain("softmax")))
    return res


def s_orthogonal(T):
    init = T.nn.init
    T.manual_seed(2)
    res = []
    for shape, gain in [((3, 5), 1), ((6, 4), 1), ((4, 4), 2.0), ((2, 3, 2), 1),
                        ((5, 2, 1, 3), 0.5)]:
        w = init.orthogonal_(T.empty(*shape), gain)
        res.append(close(w))
        flat = w.reshape(shape[0], -1)
        gram = flat @ flat.t() if shape[0] <= flat.shape[1] else flat.t() @ flat
        res.append(close(gram / (gain * gain), 4))
    res.append(close(init.orthogonal_(T.empty(3, 3, dtype=T.float64))))
    res.append(exact(init.orthogonal_(T.empty(0, 3))))
    res.append(err(lambda: init.orthogonal_(T.empty(3))))
    res.append(exact(T.rand(2)))
    return res


def s_sparse(T):
    init = T.nn.init
    T.manual_seed(3)
    w = init.sparse_(T.empty(6, 4), 0.5)
    return [exact(w), [int((w[:, j] == 0).sum()) for j in range(4)],
            err(lambda: init.sparse_(T.empty(3, 3, 3), 0.1))]


def s_deprecated(T):
    init = T.nn.init
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.uniform(T.empty(2))
        init.normal(T.empty(2))
        init.constant(T.empty(2), 1.0)
        init.xavier_uniform(T.empty(2, 2))
        init.kaiming_normal(T.empty(2, 2))
        return [str(m.message) for m in w] + [init.uniform.__name__]


SCENARIOS = [name[2:] for name in dir(sys.modules[__name__]) if name.startswith("s_")]


def run(T, name):
    return globals()["s_" + name](T)


def _norm(v):
    # tuples and lists alike
    if isinstance(v, (list, tuple)):
        return [_norm(e) for e in v]
    return v


@pytest.mark.parametrize("name", SCENARIOS)
def test_recorded(name):
    assert _norm(run(ctorch, name)) == EXPECTED[name]


@pytest.mark.parametrize("name", SCENARIOS)
def test_vs_torch(name, torch_ref):
    assert _norm(run(ctorch, name)) == _norm(run(torch_ref, name))


def test_layer_init_is_torchs(torch_ref):
    # the layers' default initializations draw as torch's do
    for seed in (0, 5, 123):
        ctorch.manual_seed(seed)
        torch_ref.manual_seed(seed)
        for args in [(10, 5), (1, 1), (7, 3), (64, 33)]:
            a, b = ctorch.nn.Linear(*args), torch_ref.nn.Linear(*args)
            assert a.weight.tolist() == b.weight.tolist()
            assert a.bias.tolist() == b.bias.tolist()
        a, b = ctorch.nn.Bilinear(3, 4, 2), torch_ref.nn.Bilinear(3, 4, 2)
        assert a.weight.tolist() == b.weight.tolist()
        assert a.bias.tolist() == b.bias.tolist()


def test_linear_10_5_seed0_values():
    # nn.Linear(10, 5) after manual_seed(0), as PyTorch 1.13 makes it
    ctorch.manual_seed(0)
    lin = ctorch.nn.Linear(10, 5)
    assert lin.weight.tolist() == EXPECTED["linear_weight"]
    assert lin.bias.tolist() == EXPECTED["linear_bias"]


# Recorded from PyTorch 1.13 (see the module docstring).
EXPECTED = {'basic': [['X', 'torch.float32', [3, 4],
            [[0.49625658988952637, 0.7682217955589294, 0.08847743272781372,
              0.13203048706054688],
             [0.30742281675338745, 0.6340786814689636, 0.4900934100151062,
              0.8964447379112244],
             [0.455627977848053, 0.6323062777519226, 0.3488934636116028,
              0.40171730518341064]]],
           ['X', 'torch.float32', [5],
            [-1.888371229171753, -1.155705213546753, -0.5305577516555786,
             0.5926089286804199, 1.4883379936218262]],
           ['X', 'torch.float32', [2, 3],
            [[-0.6254658102989197, 0.4538792371749878, -1.37397038936615],
             [2.8474254608154297, -0.7322416305541992, 0.38325488567352295]]],
           ['X', 'torch.float64', [7],
            [1.7749925563398894, 1.4780777971595054, 1.6038398782652528,
             1.6606399122377848, 0.9529649320311341, 1.7230033716440671,
             1.686385520785388]],
           ['X', 'torch.float32', [2, 2],
            [[0.30000001192092896, 0.30000001192092896],
             [0.30000001192092896, 0.30000001192092896]]],
           ['X', 'torch.float32', [3], [1.0, 1.0, 1.0]],
           ['X', 'torch.float32', [3], [0.0, 0.0, 0.0]],
           ['C', 'torch.float32', [4, 5],
            [[-0.100809, 0.907484, 0.855958, -0.044258, 0.278265],
             [0.917721, 1.486, 0.658285, 0.420825, 0.955259],
             [-0.158666, 0.465087, -0.308855, -0.241987, -0.101638],
             [0.713349, 0.663426, -0.161481, 0.568704, 0.814512]]],
           ['C', 'torch.float32', [20],
            [-0.003177, 0.000957, 0.005892, 0.017572, 0.041115, -0.024039, -0.009535,
             0.010287, 0.027351, 0.030298, 0.031295, 0.005041, -0.030249, 0.002311,
             -0.017765, -0.036494, 0.031829, 0.023518, -0.060535, 0.004736]],
           [True, True, True],
           ['X', 'torch.float32', [2], [0.0051323771476745605, 0.17565155029296875]]],
 'deprecated': ['nn.init.uniform is now deprecated in favor of nn.init.uniform_.',
                'nn.init.normal is now deprecated in favor of nn.init.normal_.',
                'nn.init.constant is now deprecated in favor of nn.init.constant_.',
                'nn.init.xavier_uniform is now deprecated in favor of '
                'nn.init.xavier_uniform_.',
                'nn.init.kaiming_normal is now deprecated in favor of '
                'nn.init.kaiming_normal_.',
                'uniform'],
 'eye_dirac': [['X', 'torch.float32', [3, 5],
                [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0],
                 [0.0, 0.0, 1.0, 0.0, 0.0]]],
               ['X', 'torch.float32', [4, 2],
                [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]],
               ['X', 'torch.float32', [2, 3, 3],
                [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                 [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]],
               ['X', 'torch.float32', [4, 2, 3, 3],
                [[[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
                  [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
                 [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                  [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]],
                 [[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
                  [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
                 [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                  [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]]],
               ['X', 'torch.float32', [1, 1, 1, 3, 3],
                [[[[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]]]],
               ['ValueError', 'Only tensors with 2 dimensions are supported'],
               ['ValueError', 'Only tensors with 3, 4, or 5 dimensions are supported'],
               ['ValueError', 'dim 0 must be divisible by groups']],
 'fans_and_gains': [[4, 3], [36, 72], [35, 14],
                    ['ValueError',
                     'Fan in and fan out can not be computed for tensor with fewer '
                     'than 2 dimensions'],
                    ['ValueError',
                     'Fan in and fan out can not be computed for tensor with fewer '
                     'than 2 dimensions'],
                    [1, 1, 1, 1, 1, 1, 1, 1, 1.6666666666666667, 1.4142135623730951,
                     1.4141428569978354, 0.75],
                    [1.3867504905630728, 1.0],
                    ['ValueError', 'negative_slope True not a valid number'],
                    ['ValueError', 'negative_slope x not a valid number'],
                    ['ValueError', 'Unsupported nonlinearity softmax']],
 'linear_bias': [0.20224684476852417, 0.3143724799156189, 0.12550516426563263,
                 0.042720112949609756, 0.21202638745307922],
 'linear_weight': [[-0.002367540495470166, 0.16963835060596466, -0.26026973128318787,
                    -0.2327243536710739, -0.12179650366306305, 0.08479880541563034,
                    -0.006265477742999792, 0.2507336735725403, -0.028063330799341202,
                    0.08367783576250076],
                   [-0.09556816518306732, -0.06215943396091461, -0.30210772156715393,
                    -0.209431990981102, -0.13035638630390167, 0.011714206077158451,
                    0.1250159591436386, 0.18974386155605316, -0.2143837958574295,
                    -0.13770543038845062],
                   [0.11485933512449265, 0.26259171962738037, -0.06507972627878189,
                    0.2366369515657425, -0.0509706512093544, 0.03346135467290878,
                    0.2863367199897766, -0.29335513710975647, -0.19907736778259277,
                    -0.08005788177251816],
                   [-0.12326556444168091, 0.27322104573249817, -0.20497240126132965,
                    -0.1455700397491455, -0.22092951834201813, -0.2961665987968445,
                    -0.18459494411945343, 0.2718287706375122, 0.14110663533210754,
                    0.15326692163944244],
                   [0.016630912199616432, -0.16212475299835205, 0.05350089445710182,
                    -0.2952601909637451, -0.2284955084323883, -0.16302490234375,
                    0.19952009618282318, 0.18541105091571808, -0.1402454376220703,
                    -0.011410252191126347]],
 'orthogonal': [['C', 'torch.float32', [3, 5],
                 [[0.232418, -0.132452, -0.18929, -0.713931, 0.618798],
                  [-0.353722, 0.360417, 0.306961, -0.662431, -0.46037],
                  [0.564704, 0.416222, -0.590389, -0.0764, -0.391755]]],
                ['C', 'torch.float32', [3, 3],
                 [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]],
                ['C', 'torch.float32', [6, 4],
                 [[-0.310272, 0.649359, -0.187844, 0.412602],
                  [-0.525017, -0.373671, -0.152961, -0.514003],
                  [0.383949, -0.568811, -0.280502, 0.489554],
                  [-0.365926, -0.259561, 0.687955, 0.47238],
                  [-0.140628, -0.055824, -0.573831, 0.236591],
                  [0.571834, 0.211351, 0.245094, -0.216283]]],
                ['C', 'torch.float32', [4, 4],
                 [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0],
                  [0.0, 0.0, 0.0, 1.0]]],
                ['C', 'torch.float32', [4, 4],
                 [[0.779087, -1.682797, 0.396944, -0.635336],
                  [-0.368818, -0.327702, -1.803131, -0.710847],
                  [-0.396489, 0.626913, 0.652689, -1.7389],
                  [-1.760623, -0.817181, 0.406388, 0.259366]]],
                ['C', 'torch.float32', [4, 4],
                 [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0],
                  [0.0, 0.0, 0.0, 1.0]]],
                ['C', 'torch.float32', [2, 3, 2],
                 [[[-0.459731, -0.666365], [-0.046859, -0.467408],
                   [0.125053, 0.329089]],
                  [[0.11195, 0.192779], [-0.041406, 0.263332], [0.663251, 0.662829]]]],
                ['C', 'torch.float32', [2, 2], [[1.0, 0.0], [0.0, 1.0]]],
                ['C', 'torch.float32', [5, 2, 1, 3],
                 [[[[0.138537, -0.049747, 0.153056]], [[0.185704, 0.13048, 0.391658]]],
                  [[[-0.049522, 0.319575, -0.078863]],
                   [[-0.252179, 0.243721, 0.127302]]],
                  [[[0.017984, 0.080219, -0.131692]], [[0.322088, 0.290573, -0.19423]]],
                  [[[-0.031077, 0.311092, 0.333754]],
                   [[0.121973, -0.130843, -0.094164]]],
                  [[[0.084643, -0.180217, 0.292167]],
                   [[-0.174216, 0.256503, -0.169855]]]]],
                ['C', 'torch.float32', [5, 5],
                 [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0],
                  [0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0],
                  [0.0, 0.0, 0.0, 0.0, 1.0]]],
                ['C', 'torch.float64', [3, 3],
                 [[0.840726, 0.339564, -0.421754], [-0.516764, 0.735754, -0.437745],
                  [-0.161665, -0.585971, -0.794042]]],
                ['X', 'torch.float32', [0, 3], []],
                ['ValueError', 'Only tensors with 2 or more dimensions are supported'],
                ['X', 'torch.float32', [2], [0.05034363269805908, 0.4957199692726135]]],
 'sparse': [['X', 'torch.float32', [6, 4],
             [[-0.0007664429140277207, 0.0035988150630146265, -0.00782016757875681,
               0.0007152773323468864],
              [0.0, -0.0028678029775619507, 0.016205506399273872, 0.0],
              [0.0, 0.0, 0.0, 0.0],
              [-0.003448453266173601, 0.0, 0.0, -0.01805364526808262],
              [0.004851140081882477, 0.0020523436833173037, 0.0033842818811535835,
               0.013527539558708668],
              [0.0, 0.0, 0.0, 0.0]]],
            [3, 3, 3, 3],
            ['ValueError', 'Only tensors with 2 dimensions are supported']],
 'xavier_kaiming': [['X', 'torch.float32', [3, 5],
                     [[0.44623100757598877, -0.3822447657585144, -0.16788896918296814,
                       0.4064854085445404, -0.8153082728385925],
                      [0.5193703770637512, -0.1781633496284485, 0.44058510661125183,
                       0.12039224058389664, -0.10603974759578705],
                      [0.24020159244537354, 0.04272257909178734, 0.31629687547683716,
                       -0.337490975856781, -0.06314083933830261]]],
                    ['X', 'torch.float32', [4, 2, 3],
                     [[[-0.07350701093673706, 0.11834624409675598,
                        -0.0032617589458823204],
                       [0.7137541770935059, 0.2540856897830963, -0.3040684461593628]],
                      [[-0.4931323826313019, -0.13685761392116547,
                        -0.35218822956085205],
                       [-0.2616451382637024, 0.03909516707062721, 0.4867362976074219]],
                      [[0.4437958300113678, -0.7981669902801514, 0.5061630010604858],
                       [0.22809965908527374, 0.7744923233985901, 0.5389366149902344]],
                      [[-0.7439408302307129, -0.7763318419456482, -0.3938225209712982],
                       [0.7169752717018127, -0.1360030174255371, 0.3494274318218231]]]],
                    ['X', 'torch.float32', [6, 2],
                     [[0.27087244391441345, 0.3323080837726593],
                      [0.16237518191337585, 0.04980437457561493],
                      [0.28634655475616455, 0.5745964050292969],
                      [0.09888513386249542, 0.06528777629137039],
                      [0.12119890749454498, 0.43081364035606384],
                      [0.036345694214105606, 0.6742053031921387]]],
                    ['X', 'torch.float32', [2, 3, 2, 2],
                     [[[[-0.2807154953479767, -0.00403229333460331],
                        [-0.1618027687072754, -0.09426514804363251]],
                       [[-0.1589883714914322, -0.03329978138208389],
                        [-0.0011933689238503575, 0.26459208130836487]],
                       [[-0.0252971351146698, -0.07979567348957062],
                        [-0.23315057158470154, -0.05400814861059189]]],
                      [[[-0.04747500270605087, 0.20673951506614685],
                        [-0.1838546246290207, 0.01891613006591797]],
                       [[0.31475797295570374, -0.14620763063430786],
                        [-0.14706189930438995, 0.2261258065700531]],
                       [[0.06653011590242386, -0.05594172328710556],
                        [0.12078747153282166, -0.09312128275632858]]]]],
                    ['X', 'torch.float32', [4, 3],
                     [[0.6123589873313904, -0.9141576886177063, -1.2026889324188232],
                      [1.3574875593185425, 0.07384566217660904, 0.9693840742111206],
                      [0.293069452047348, 0.4548432230949402, 1.0563589334487915],
                      [1.3409780263900757, -0.9384452700614929, 0.1768176555633545]]],
                    ['X', 'torch.float32', [4, 3, 2],
                     [[[0.633727490901947, 0.6151958703994751],
                       [0.5275605320930481, -0.614587664604187],
                       [-0.6115180850028992, -0.5135767459869385]],
                      [[0.10668457299470901, 0.8463755249977112],
                       [-0.5364238023757935, 0.45252659916877747],
                       [-0.470026433467865, -0.7984384894371033]],
                      [[-0.18049034476280212, 0.4892888069152832],
                       [0.7883831858634949, -0.5273909568786621],
                       [0.18428760766983032, 0.7327475547790527]],
                      [[0.5627305507659912, 0.5292458534240723],
                       [0.6034746766090393, 0.5371378064155579],
                       [0.219347283244133, -0.5807053446769714]]]],
                    ['X', 'torch.float32', [5, 2],
                     [[-1.454504370689392, -0.79366135597229],
                      [-0.201690211892128, -1.061664342880249],
                      [0.6336771249771118, 0.5360485911369324],
                      [-0.3921974301338196, 0.6656976938247681],
                      [0.5597723722457886, 1.05748450756073]]],
                    ['X', 'torch.float32', [3, 4],
                     [[-0.5345320701599121, -1.449607491493225, 0.4838010370731354,
                       -0.5659095644950867],
                      [-0.26430588960647583, 1.0538723468780518, -0.9169934988021851,
                       -0.22931136190891266],
                      [0.21958546340465546, -0.2420530915260315, 0.4932558238506317,
                       0.99821937084198]]],
                    ['X', 'torch.float32', [3, 4, 1, 2],
                     [[[[-0.9205412268638611, 2.3023436069488525]],
                       [[-1.6359838247299194, 0.5740340352058411]],
                       [[0.7931593060493469, 0.3585319519042969]],
                       [[1.101762294769287, -0.6559028029441833]]],
                      [[[-1.257049322128296, -1.9845919609069824]],
                       [[-0.38601911067962646, -0.8159368634223938]],
                       [[-0.032263267785310745, -1.3628355264663696]],
                       [[-0.3343554735183716, 1.1625584363937378]]],
                      [[[-0.11791559308767319, 0.4955088794231415]],
                       [[0.03882510960102081, -0.4825246036052704]],
                       [[-0.3580649197101593, -0.7513447403907776]],
                       [[-0.4759140908718109, 0.3796583414077759]]]]],
                    ['X', 'torch.float64', [2, 3],
                     [[0.47821946397919557, -0.22352286948270622, -0.4463208050263418],
                      [0.03106297711128439, 0.1488234145974114, -0.3667717593481399]]],
                    [[0, 3],
                     ['Initializing zero-element tensors is a no-op',
                      'Initializing zero-element tensors is a no-op']],
                    ['ValueError',
                     "Mode fan_avg not supported, please use one of ['fan_in', "
                     "'fan_out']"],
                    ['ValueError',
                     'Fan in and fan out can not be computed for tensor with fewer '
                     'than 2 dimensions'],
                    ['ValueError',
                     'Fan in and fan out can not be computed for tensor with fewer '
                     'than 2 dimensions'],
                    ['X', 'torch.float32', [2],
                     [0.14075547456741333, 0.3854496479034424]]]}

if __name__ == "__main__":
    import pprint
    import torch
    out = {n: _norm(run(torch, n)) for n in SCENARIOS}
    torch.manual_seed(0)
    lin = torch.nn.Linear(10, 5)
    out["linear_weight"] = lin.weight.tolist()
    out["linear_bias"] = lin.bias.tolist()
    print("EXPECTED = " + pprint.pformat(out, width=88, compact=True))
