"""The /agent page's screen model (plain Python) and the StreamProcessor that feeds it."""

from app.screen.chat_model import AgentChatModel
from app.screen.stream import StreamProcessor

__all__ = ["AgentChatModel", "StreamProcessor"]
