"""torch._dynamo.exc: the exception libraries catch around compiled code (never raised here)."""


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    pass
