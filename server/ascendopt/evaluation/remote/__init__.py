"""evaluation/remote"""
