"""The op types each opset of OpenVINO 2026.4.1 holds (generated: do not edit).

Written by ``scripts/generate_opsets.py`` from the installed openvino, so that
``validate`` can tell an op OpenVINO does not know (``read_model`` refuses the layer)
from one ovonehot does not implement, without importing openvino.  A layer's
``version`` must be one of these keys exactly; its ``type`` is matched without regard
to case, and ``Const`` is ``Constant``, as OpenVINO's IR reader does.
``tests/test_openvino_opsets.py`` regenerates the table and compares.
"""

from __future__ import annotations

OPENVINO_VERSION = "2026.4.1"

# Each opset's types, separated by whitespace.
_TYPES = {
    "opset1": """
        Abs Acos Add Asin Atan AvgPool BatchNormInference BinaryConvolution Broadcast CTCGreedyDecoder
        Ceiling Clamp Concat Constant Convert ConvertLike Convolution ConvolutionBackpropData Cos Cosh
        DeformableConvolution DeformablePSROIPooling DepthToSpace DetectionOutput Divide Elu Equal Erf Exp
        FakeQuantize Floor FloorMod GRN Gather GatherTree Greater GreaterEqual GroupConvolution
        GroupConvolutionBackpropData HardSigmoid Interpolate LRN LSTMCell Less LessEqual Log LogicalAnd
        LogicalNot LogicalOr LogicalXor MatMul MaxPool Maximum Minimum Mod Multiply Negative
        NonMaxSuppression NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox
        PriorBoxClustered Proposal RNNCell Range ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean
        ReduceMin ReduceProd ReduceSum RegionYolo Relu Reshape Result Reverse ReverseSequence Select Selu
        ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh Softmax SpaceToDepth Split Sqrt SquaredDifference
        Squeeze StridedSlice Subtract Tan Tanh TensorIterator Tile TopK Transpose Unsqueeze VariadicSplit
    """,
    "opset2": """
        Abs Acos Add Asin Atan AvgPool BatchNormInference BatchToSpace BinaryConvolution Broadcast
        CTCGreedyDecoder Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh DeformableConvolution DeformablePSROIPooling DepthToSpace
        DetectionOutput Divide Elu Equal Erf Exp FakeQuantize Floor FloorMod GRN Gather GatherTree Gelu
        Greater GreaterEqual GroupConvolution GroupConvolutionBackpropData HardSigmoid Interpolate LRN
        LSTMCell Less LessEqual Log LogicalAnd LogicalNot LogicalOr LogicalXor MVN MatMul MaxPool Maximum
        Minimum Mod Multiply Negative NonMaxSuppression NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad
        Parameter Power PriorBox PriorBoxClustered Proposal ROIPooling Range ReduceLogicalAnd
        ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo
        Reshape Result ReverseSequence Select Selu ShapeOf Sigmoid Sign Sin Sinh Softmax SpaceToBatch
        SpaceToDepth Split Sqrt SquaredDifference Squeeze StridedSlice Subtract Tan Tanh TensorIterator
        Tile TopK Transpose Unsqueeze VariadicSplit
    """,
    "opset3": """
        Abs Acos Add Asin Assign Atan AvgPool BatchNormInference BatchToSpace BinaryConvolution Broadcast
        Bucketize CTCGreedyDecoder Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh CumSum DeformableConvolution DeformablePSROIPooling DepthToSpace
        DetectionOutput Divide Elu EmbeddingBagOffsetsSum EmbeddingBagPackedSum EmbeddingSegmentsSum Equal
        Erf Exp ExtractImagePatches FakeQuantize Floor FloorMod GRN GRUCell Gather GatherTree Gelu Greater
        GreaterEqual GroupConvolution GroupConvolutionBackpropData HardSigmoid Interpolate LRN LSTMCell
        Less LessEqual Log LogicalAnd LogicalNot LogicalOr LogicalXor MVN MatMul MaxPool Maximum Minimum
        Mod Multiply Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad
        Parameter Power PriorBox PriorBoxClustered Proposal RNNCell ROIAlign ROIPooling Range ReadValue
        ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo
        Relu ReorgYolo Reshape Result ReverseSequence ScatterElementsUpdate ScatterUpdate Select Selu
        ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Tan Tanh TensorIterator Tile TopK Transpose
        Unsqueeze VariadicSplit
    """,
    "opset4": """
        Abs Acos Acosh Add Asin Asinh Assign Atan Atanh AvgPool BatchNormInference BatchToSpace
        BinaryConvolution Broadcast Bucketize CTCGreedyDecoder CTCLoss Ceiling Clamp Concat Constant
        Convert ConvertLike Convolution ConvolutionBackpropData Cos Cosh CumSum DeformableConvolution
        DeformablePSROIPooling DepthToSpace DetectionOutput Divide Elu EmbeddingBagOffsetsSum
        EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches FakeQuantize Floor
        FloorMod GRN GRUCell Gather GatherTree Gelu Greater GreaterEqual GroupConvolution
        GroupConvolutionBackpropData HSwish HardSigmoid Interpolate LRN LSTMCell Less LessEqual Log
        LogicalAnd LogicalNot LogicalOr LogicalXor MVN MatMul MaxPool Maximum Minimum Mish Mod Multiply
        Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter
        Power PriorBox PriorBoxClustered Proposal RNNCell ROIAlign ROIPooling Range ReadValue ReduceL1
        ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum
        RegionYolo Relu ReorgYolo Reshape Result ReverseSequence ScatterElementsUpdate ScatterNDUpdate
        ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh SoftPlus Softmax
        SpaceToBatch SpaceToDepth Split Sqrt SquaredDifference Squeeze StridedSlice Subtract Swish Tan
        Tanh TensorIterator Tile TopK Transpose Unsqueeze VariadicSplit
    """,
    "opset5": """
        Abs Acos Acosh Add Asin Asinh Assign Atan Atanh AvgPool BatchNormInference BatchToSpace
        BinaryConvolution Broadcast Bucketize CTCGreedyDecoder CTCLoss Ceiling Clamp Concat Constant
        Convert ConvertLike Convolution ConvolutionBackpropData Cos Cosh CumSum DeformableConvolution
        DeformablePSROIPooling DepthToSpace DetectionOutput Divide Elu EmbeddingBagOffsetsSum
        EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches FakeQuantize Floor
        FloorMod GRN GRUCell GRUSequence Gather GatherND GatherTree Gelu Greater GreaterEqual
        GroupConvolution GroupConvolutionBackpropData HSigmoid HSwish HardSigmoid Interpolate LRN LSTMCell
        LSTMSequence Less LessEqual Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN
        MatMul MaxPool Maximum Minimum Mish Mod Multiply Negative NonMaxSuppression NonZero NormalizeL2
        NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox PriorBoxClustered Proposal RNNCell
        RNNSequence ROIAlign ROIPooling Range ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr
        ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result
        ReverseSequence Round ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf
        ShuffleChannels Sigmoid Sign Sin Sinh SoftPlus Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
        Unsqueeze VariadicSplit
    """,
    "opset6": """
        Abs Acos Acosh Add Asin Asinh Assign Atan Atanh AvgPool BatchNormInference BatchToSpace
        BinaryConvolution Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Ceiling
        Clamp Concat Constant Convert ConvertLike Convolution ConvolutionBackpropData Cos Cosh CumSum
        DeformableConvolution DeformablePSROIPooling DepthToSpace DetectionOutput Divide Elu
        EmbeddingBagOffsetsSum EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp
        ExtractImagePatches FakeQuantize Floor FloorMod GRN GRUCell GRUSequence Gather GatherElements
        GatherND GatherTree Gelu Greater GreaterEqual GroupConvolution GroupConvolutionBackpropData
        HSigmoid HSwish HardSigmoid Interpolate LRN LSTMCell LSTMSequence Less LessEqual Log LogSoftmax
        LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MaxPool Maximum Minimum Mish Mod
        Multiply Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad
        Parameter Power PriorBox PriorBoxClustered Proposal RNNCell RNNSequence ROIAlign ROIPooling Range
        ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin
        ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result ReverseSequence Round
        ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid
        Sign Sin Sinh SoftPlus Softmax SpaceToBatch SpaceToDepth Split Sqrt SquaredDifference Squeeze
        StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose Unsqueeze VariadicSplit
    """,
    "opset7": """
        Abs Acos Acosh Add Asin Asinh Assign Atan Atanh AvgPool BatchNormInference BatchToSpace
        BinaryConvolution Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Ceiling
        Clamp Concat Constant Convert ConvertLike Convolution ConvolutionBackpropData Cos Cosh CumSum DFT
        DeformableConvolution DeformablePSROIPooling DepthToSpace DetectionOutput Divide Einsum Elu
        EmbeddingBagOffsetsSum EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp
        ExtractImagePatches FakeQuantize Floor FloorMod GRN GRUCell GRUSequence Gather GatherElements
        GatherND GatherTree Gelu Greater GreaterEqual GroupConvolution GroupConvolutionBackpropData
        HSigmoid HSwish HardSigmoid IDFT Interpolate LRN LSTMCell LSTMSequence Less LessEqual Log
        LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MaxPool Maximum Minimum Mish
        Mod Multiply Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad
        Parameter Power PriorBox PriorBoxClustered Proposal RNNCell RNNSequence ROIAlign ROIPooling Range
        ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin
        ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result ReverseSequence Roll Round
        ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid
        Sign Sin Sinh SoftPlus Softmax SpaceToBatch SpaceToDepth Split Sqrt SquaredDifference Squeeze
        StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose Unsqueeze VariadicSplit
    """,
    "opset8": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution Broadcast Bucketize CTCGreedyDecoder
        CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsetsSum EmbeddingBagPackedSum
        EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches FakeQuantize Floor FloorMod GRN GRUCell
        GRUSequence Gather GatherElements GatherND GatherTree Gelu Greater GreaterEqual GroupConvolution
        GroupConvolutionBackpropData HSigmoid HSwish HardSigmoid I420toBGR I420toRGB IDFT If Interpolate
        LRN LSTMCell LSTMSequence Less LessEqual Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor
        Loop MVN MatMul MatrixNms MaxPool Maximum Minimum Mish Mod MulticlassNms Multiply NV12toBGR
        NV12toRGB Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad
        Parameter Power PriorBox PriorBoxClustered Proposal RNNCell RNNSequence ROIAlign ROIPooling
        RandomUniform Range ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax
        ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result ReverseSequence
        Roll Round ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels
        Sigmoid Sign Sin Sinh Slice SoftPlus Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
        Unsqueeze VariadicSplit
    """,
    "opset9": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution Broadcast Bucketize CTCGreedyDecoder
        CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsetsSum EmbeddingBagPackedSum
        EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches Eye FakeQuantize Floor FloorMod GRN GRUCell
        GRUSequence Gather GatherElements GatherND GatherTree Gelu GenerateProposals Greater GreaterEqual
        GridSample GroupConvolution GroupConvolutionBackpropData HSigmoid HSwish HardSigmoid I420toBGR
        I420toRGB IDFT IRDFT If Interpolate LRN LSTMCell LSTMSequence Less LessEqual Log LogSoftmax
        LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MatrixNms MaxPool Maximum Minimum Mish
        Mod MulticlassNms Multiply NV12toBGR NV12toRGB Negative NonMaxSuppression NonZero NormalizeL2
        NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox PriorBoxClustered Proposal RDFT
        RNNCell RNNSequence ROIAlign ROIPooling RandomUniform Range ReadValue ReduceL1 ReduceL2
        ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo
        Relu ReorgYolo Reshape Result ReverseSequence Roll Round ScatterElementsUpdate ScatterNDUpdate
        ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh Slice SoftPlus SoftSign
        Softmax SpaceToBatch SpaceToDepth Split Sqrt SquaredDifference Squeeze StridedSlice Subtract Swish
        Tan Tanh TensorIterator Tile TopK Transpose Unsqueeze VariadicSplit
    """,
    "opset10": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution Broadcast Bucketize CTCGreedyDecoder
        CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsetsSum EmbeddingBagPackedSum
        EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches Eye FakeQuantize Floor FloorMod GRN GRUCell
        GRUSequence Gather GatherElements GatherND GatherTree Gelu GenerateProposals Greater GreaterEqual
        GridSample GroupConvolution GroupConvolutionBackpropData HSigmoid HSwish HardSigmoid I420toBGR
        I420toRGB IDFT IRDFT If Interpolate IsFinite IsInf IsNaN LRN LSTMCell LSTMSequence Less LessEqual
        Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MatrixNms MaxPool
        Maximum Minimum Mish Mod MulticlassNms Multiply NV12toBGR NV12toRGB Negative NonMaxSuppression
        NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox
        PriorBoxClustered Proposal RDFT RNNCell RNNSequence ROIAlign ROIPooling RandomUniform Range
        ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin
        ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result ReverseSequence Roll Round
        ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid
        Sign Sin Sinh Slice SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
        Unique Unsqueeze VariadicSplit
    """,
    "opset11": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution Broadcast Bucketize CTCGreedyDecoder
        CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsetsSum EmbeddingBagPackedSum
        EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches Eye FakeQuantize Floor FloorMod GRN GRUCell
        GRUSequence Gather GatherElements GatherND GatherTree Gelu GenerateProposals Greater GreaterEqual
        GridSample GroupConvolution GroupConvolutionBackpropData HSigmoid HSwish HardSigmoid I420toBGR
        I420toRGB IDFT IRDFT If Interpolate IsFinite IsInf IsNaN LRN LSTMCell LSTMSequence Less LessEqual
        Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MatrixNms MaxPool
        Maximum Minimum Mish Mod MulticlassNms Multiply NV12toBGR NV12toRGB Negative NonMaxSuppression
        NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox
        PriorBoxClustered Proposal RDFT RNNCell RNNSequence ROIAlign ROIPooling RandomUniform Range
        ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin
        ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result ReverseSequence Roll Round
        ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid
        Sign Sin Sinh Slice SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
        Unique Unsqueeze VariadicSplit
    """,
    "opset12": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution Broadcast Bucketize CTCGreedyDecoder
        CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant Convert ConvertLike Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsetsSum EmbeddingBagPackedSum
        EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches Eye FakeQuantize Floor FloorMod GRN GRUCell
        GRUSequence Gather GatherElements GatherND GatherTree Gelu GenerateProposals Greater GreaterEqual
        GridSample GroupConvolution GroupConvolutionBackpropData GroupNormalization HSigmoid HSwish
        HardSigmoid I420toBGR I420toRGB IDFT IRDFT If Interpolate IsFinite IsInf IsNaN LRN LSTMCell
        LSTMSequence Less LessEqual Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN
        MatMul MatrixNms MaxPool Maximum Minimum Mish Mod MulticlassNms Multiply NV12toBGR NV12toRGB
        Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter
        Power PriorBox PriorBoxClustered Proposal RDFT RNNCell RNNSequence ROIAlign ROIPooling
        RandomUniform Range ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax
        ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result ReverseSequence
        Roll Round ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels
        Sigmoid Sign Sin Sinh Slice SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
        Unique Unsqueeze VariadicSplit
    """,
    "opset13": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution BitwiseAnd BitwiseNot BitwiseOr BitwiseXor
        Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant
        Convert ConvertLike Convolution ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution
        DeformablePSROIPooling DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsetsSum
        EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches Eye FakeConvert
        FakeQuantize Floor FloorMod GRN GRUCell GRUSequence Gather GatherElements GatherND GatherTree Gelu
        GenerateProposals Greater GreaterEqual GridSample GroupConvolution GroupConvolutionBackpropData
        GroupNormalization HSigmoid HSwish HardSigmoid I420toBGR I420toRGB IDFT IRDFT If Interpolate
        IsFinite IsInf IsNaN LRN LSTMCell LSTMSequence Less LessEqual Log LogSoftmax LogicalAnd LogicalNot
        LogicalOr LogicalXor Loop MVN MatMul MatrixNms MaxPool Maximum Minimum Mish Mod MulticlassNms
        Multinomial Multiply NMSRotated NV12toBGR NV12toRGB Negative NonMaxSuppression NonZero NormalizeL2
        NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox PriorBoxClustered Proposal RDFT
        RNNCell RNNSequence ROIAlign ROIPooling RandomUniform Range ReadValue ReduceL1 ReduceL2
        ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo
        Relu ReorgYolo Reshape Result ReverseSequence Roll Round ScaledDotProductAttention
        ScatterElementsUpdate ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid
        Sign Sin Sinh Slice SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth Split Sqrt
        SquaredDifference Squeeze StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
        Unique Unsqueeze VariadicSplit
    """,
    "opset14": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution BitwiseAnd BitwiseNot BitwiseOr BitwiseXor
        Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Concat Constant
        Convert ConvertLike ConvertPromoteTypes Convolution ConvolutionBackpropData Cos Cosh CumSum DFT
        DeformableConvolution DeformablePSROIPooling DepthToSpace DetectionOutput Divide Einsum Elu
        EmbeddingBagOffsetsSum EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp
        ExtractImagePatches Eye FakeConvert FakeQuantize Floor FloorMod GRN GRUCell GRUSequence Gather
        GatherElements GatherND GatherTree Gelu GenerateProposals Greater GreaterEqual GridSample
        GroupConvolution GroupConvolutionBackpropData GroupNormalization HSigmoid HSwish HardSigmoid
        I420toBGR I420toRGB IDFT IRDFT If Interpolate Inverse IsFinite IsInf IsNaN LRN LSTMCell
        LSTMSequence Less LessEqual Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN
        MatMul MatrixNms MaxPool Maximum Minimum Mish Mod MulticlassNms Multinomial Multiply NMSRotated
        NV12toBGR NV12toRGB Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu
        PSROIPooling Pad Parameter Power PriorBox PriorBoxClustered Proposal RDFT RNNCell RNNSequence
        ROIAlign ROIPooling RandomUniform Range ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd
        ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo
        Reshape Result ReverseSequence Roll Round ScaledDotProductAttention ScatterElementsUpdate
        ScatterNDUpdate ScatterUpdate Select Selu ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh Slice
        SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth Split Sqrt SquaredDifference Squeeze
        StridedSlice Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose Unique Unsqueeze
        VariadicSplit
    """,
    "opset15": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution BitwiseAnd BitwiseLeftShift BitwiseNot BitwiseOr
        BitwiseRightShift BitwiseXor Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss
        Ceiling Clamp Col2Im Concat Constant Convert ConvertLike ConvertPromoteTypes Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsets EmbeddingBagOffsetsSum
        EmbeddingBagPacked EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches
        Eye FakeConvert FakeQuantize Floor FloorMod GRN GRUCell GRUSequence Gather GatherElements GatherND
        GatherTree Gelu GenerateProposals Greater GreaterEqual GridSample GroupConvolution
        GroupConvolutionBackpropData GroupNormalization HSigmoid HSwish HardSigmoid I420toBGR I420toRGB
        IDFT IRDFT If Interpolate Inverse IsFinite IsInf IsNaN LRN LSTMCell LSTMSequence Less LessEqual
        Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MatrixNms MaxPool
        Maximum Minimum Mish Mod MulticlassNms Multinomial Multiply NMSRotated NV12toBGR NV12toRGB
        Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter
        Power PriorBox PriorBoxClustered Proposal RDFT RNNCell RNNSequence ROIAlign ROIAlignRotated
        ROIPooling RandomUniform Range ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr
        ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result
        ReverseSequence Roll Round STFT ScaledDotProductAttention ScatterElementsUpdate ScatterNDUpdate
        ScatterUpdate SearchSorted Select Selu ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh Slice
        SliceScatter SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth Split Sqrt SquaredDifference
        Squeeze StridedSlice StringTensorPack StringTensorUnpack Subtract Swish Tan Tanh TensorIterator
        Tile TopK Transpose Unique Unsqueeze VariadicSplit
    """,
    "opset16": """
        Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool
        BatchNormInference BatchToSpace BinaryConvolution BitwiseAnd BitwiseLeftShift BitwiseNot BitwiseOr
        BitwiseRightShift BitwiseXor Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss
        Ceiling Clamp Col2Im Concat Constant Convert ConvertLike ConvertPromoteTypes Convolution
        ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution DeformablePSROIPooling
        DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsets EmbeddingBagOffsetsSum
        EmbeddingBagPacked EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf Exp ExtractImagePatches
        Eye FakeConvert FakeQuantize Floor FloorMod GRN GRUCell GRUSequence Gather GatherElements GatherND
        GatherTree Gelu GenerateProposals Greater GreaterEqual GridSample GroupConvolution
        GroupConvolutionBackpropData GroupNormalization HSigmoid HSwish HardSigmoid I420toBGR I420toRGB
        IDFT IRDFT ISTFT Identity If Interpolate Inverse IsFinite IsInf IsNaN LRN LSTMCell LSTMSequence
        Less LessEqual Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MVN MatMul MatrixNms
        MaxPool Maximum Minimum Mish Mod MulticlassNms Multinomial Multiply NMSRotated NV12toBGR NV12toRGB
        Negative NonMaxSuppression NonZero NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter
        Power PriorBox PriorBoxClustered Proposal RDFT RNNCell RNNSequence ROIAlign ROIAlignRotated
        ROIPooling RandomUniform Range ReadValue ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr
        ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape Result
        ReverseSequence Roll Round STFT ScaledDotProductAttention ScatterElementsUpdate ScatterNDUpdate
        ScatterUpdate SearchSorted SegmentMax Select Selu ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh
        Slice SliceScatter SoftPlus SoftSign Softmax SpaceToBatch SpaceToDepth SparseFillEmptyRows Split
        Sqrt SquaredDifference Squeeze StridedSlice StringTensorPack StringTensorUnpack Subtract Swish Tan
        Tanh TensorIterator Tile TopK Transpose Unique Unsqueeze VariadicSplit
    """,
    "opset17": """
        Convert ErfInv GroupedMatMul Parameter ShapeOf
    """,
}

OPSETS: dict[str, frozenset[str]] = {key: frozenset(text.split()) for key, text in _TYPES.items()}
