"""hicann/ops-nn rnn/: recurrent layers (LSTM, GRU) and their backward."""

OPERATORS = {
    "aclnnBidirectionLSTM": "lstm",
    "aclnnBidirectionLSTMV2": "lstm",
    "aclnnGRU": "gru",
    "aclnnLSTM": "lstm",
    "aclnnLstmBackward": "lstm_backward",
    "aclnnThnnFusedLstmCell": "lstm_cell",
    "aclnnThnnFusedLstmCellBackward": "lstm_cell",
}
