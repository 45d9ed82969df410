from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.submissions.dispatch import Dispatcher, ResultWaiter


async def get_dispatcher(request: Request) -> Dispatcher:
    dispatcher: Dispatcher = request.app.state.dispatcher
    return dispatcher


async def get_waiter(request: Request) -> ResultWaiter:
    waiter: ResultWaiter = request.app.state.waiter
    return waiter


DispatcherDep = Annotated[Dispatcher, Depends(get_dispatcher)]
WaiterDep = Annotated[ResultWaiter, Depends(get_waiter)]
