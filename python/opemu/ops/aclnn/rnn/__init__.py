"""hicann/ops-nn rnn/: recurrent layers (LSTM, GRU) and their backward."""

OPERATORS = {
}
